package tandem.features;

import java.io.IOException;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import org.apache.felix.service.command.Descriptor;
import org.osgi.framework.BundleException;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/** {@code feature:*}, Karaf's verbs: what features there are, what one holds, install and uninstall. */
@Component(service = FeatureCommands.class, immediate = true, property = {
    "osgi.command.scope=feature",
    "osgi.command.function=list",
    "osgi.command.function=info",
    "osgi.command.function=install",
    "osgi.command.function=uninstall"
})
public final class FeatureCommands {

    private final FeatureManager features;

    @Activate
    public FeatureCommands(@Reference FeatureManager features) {
        this.features = features;
    }

    @Descriptor("lists the features of the distribution's features/ directory and whether each is installed")
    public String list() {
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%-20s | %-16s | %-8s | %-11s | %s%n",
                "Name", "Version", "Required", "State", "Description"));
        for (FeatureManager.View v : features.list()) {
            sb.append(String.format(Locale.ROOT, "%-20s | %-16s | %-8s | %-11s | %s%n", v.name(), v.version(),
                    v.required() ? "x" : "", v.state(), v.feature().getDescription().orElse("")));
        }
        return sb.toString().stripTrailing();
    }

    @Descriptor("shows a feature: its bundles with their state, and its configurations")
    public String info(@Descriptor("the feature's name, as feature:list shows it") String name) throws IOException {
        FeatureManager.View v = features.info(name);
        Set<String> created = features.createdBy(name);
        StringBuilder sb = new StringBuilder();
        sb.append("Feature ").append(v.name()).append(' ').append(v.version()).append(" (")
                .append(v.feature().getID()).append(")\n");
        v.feature().getDescription().ifPresent(d -> sb.append("Description: ").append(d).append('\n'));
        sb.append("State: ").append(v.state()).append(v.required() ? " (required)" : "").append('\n');
        if (!v.feature().getCategories().isEmpty()) {
            sb.append("Categories: ").append(String.join(", ", v.feature().getCategories())).append('\n');
        }
        sb.append("File: ").append(v.file()).append('\n');
        sb.append("Bundles:\n");
        for (FeatureManager.Member m : v.members()) {
            sb.append(String.format(Locale.ROOT, "  %-6s %-14s %s%s%n",
                    m.bundle() == null ? "" : "[" + m.bundle().getBundleId() + "]", m.state(), m.id(),
                    m.jar() == null ? "" : m.runtime() ? " (runtime, bundle/)" : ""));
        }
        Map<String, Boolean> configurations = features.configurations(v);
        sb.append("Configurations:").append(configurations.isEmpty() ? " none\n" : "\n");
        configurations.forEach((pid, present) -> sb.append("  ").append(pid).append(": ")
                .append(!present ? "absent (feature:install creates it)"
                        : created.contains(pid) ? "created by this feature"
                        : "present, not this feature's (etc/ or the shell): install leaves it, uninstall keeps it")
                .append('\n'));
        return sb.toString().stripTrailing();
    }

    @Descriptor("installs a feature: creates its missing configurations, installs and starts its bundles, and waits "
            + "until they are active")
    public String install(@Descriptor("the feature's name, as feature:list shows it") String name)
            throws IOException, BundleException {
        return features.install(name);
    }

    @Descriptor("uninstalls a feature: removes the bundles no other installed feature needs and deletes the "
            + "configurations it created")
    public String uninstall(@Descriptor("the feature's name, as feature:list shows it") String name)
            throws IOException, BundleException {
        return features.uninstall(name);
    }
}
