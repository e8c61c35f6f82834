package tandem.features;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/** The configuration of {@code tandem.features}. Empty directories mean the distribution's and the home's own. */
@ObjectClassDefinition(id = FeatureManager.PID, name = "Tandem features",
        description = "Where feature:install finds features and their bundles, and where it installs them.")
public @interface FeaturesConfig {

    @AttributeDefinition(description = "The directory of feature files (OSGi Feature JSON, *.json); empty: the "
            + "distribution's features/. Read again by every feature:* command.")
    String features_directory() default "";

    @AttributeDefinition(description = "The distribution's bundle repository, in Maven's layout "
            + "(group/artifact/version/artifact-version[-classifier].jar); empty: the distribution's system/.")
    String repository_directory() default "";

    @AttributeDefinition(description = "The runtime bundles the launcher starts at boot (found by file name, never "
            + "uninstalled by a feature); empty: the distribution's bundle/.")
    String runtime_directory() default "";

    @AttributeDefinition(description = "The directory FileInstall watches for this node's bundles: a feature's "
            + "bundles are installed by placing them here, which is also what keeps them installed across a "
            + "restart; empty: the home's deploy/.")
    String deploy_directory() default "";

    @AttributeDefinition(description = "How long, in milliseconds, feature:install waits for its bundles to start "
            + "and feature:uninstall for them to go (1000..600000). Applies live.")
    long timeout_ms() default 30_000;
}
