package tandem.features;

import java.io.IOException;
import java.io.Reader;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.net.URI;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.stream.Collectors;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.BundleListener;
import org.osgi.framework.Constants;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.Version;
import org.osgi.framework.wiring.FrameworkWiring;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.feature.Feature;
import org.osgi.service.feature.FeatureBundle;
import org.osgi.service.feature.FeatureConfiguration;
import org.osgi.service.feature.FeatureService;
import org.osgi.service.feature.ID;
import org.osgi.service.metatype.annotations.Designate;

import tandem.api.home.NodeHome;

/**
 * Installs and uninstalls OSGi Features (Feature Service 1.0 JSON, read by the Felix Feature Service) on a running
 * node. A feature's bundles come from the distribution's repository ({@code system/}, Maven layout) or, for the
 * runtime the launcher starts at boot, from {@code bundle/}. Repository bundles are installed by placing them in the
 * home's {@code deploy/}, which FileInstall watches: what a node has installed is what its {@code deploy/} holds, so
 * installed features survive a restart (the framework cache is cleaned at every start) and an operator can see and
 * change them with {@code ls} and {@code cp}. Configurations are applied through ConfigurationAdmin before the
 * bundles start, only where none exists yet (an operator's {@code etc/*.cfg} wins), and are marked so that
 * uninstalling deletes exactly the ones the feature created.
 *
 * <p>Two rules come from the feature files' {@code categories}: {@code required} (the node's runtime: it cannot be
 * uninstalled, the node would stop serving) and {@code exclusive:<slot>} (only one installed feature may serve the
 * slot; installing a second is refused with the reason). Transports are not exclusive: both may be installed and
 * {@code tandem.server:transport} chooses.
 */
@Component(service = FeatureManager.class, configurationPid = FeatureManager.PID)
@Designate(ocd = FeaturesConfig.class)
public final class FeatureManager {

    static final String PID = "tandem.features";
    /** The configuration property that marks a configuration as created by a feature: its name. */
    static final String MARKER = ".tandem.feature";
    static final String REQUIRED = "required";
    static final String EXCLUSIVE = "exclusive:";
    private static final Logger LOG = System.getLogger("tandem.features");

    private final BundleContext context;
    private final FeatureService featureService;
    private final ConfigurationAdmin configurationAdmin;
    private final Path featuresDir;
    private final Path repositoryDir;
    private final Path runtimeDir;
    private final Path deployDir;
    private volatile long timeoutNanos;

    @Activate
    public FeatureManager(BundleContext context, @Reference FeatureService featureService,
            @Reference ConfigurationAdmin configurationAdmin, @Reference NodeHome home, FeaturesConfig config) {
        this.context = context;
        this.featureService = featureService;
        this.configurationAdmin = configurationAdmin;
        Path distribution = Path.of(System.getProperty("tandem.dist", "")).toAbsolutePath();
        this.featuresDir = directory(config.features_directory(), distribution, "features");
        this.repositoryDir = directory(config.repository_directory(), distribution, "system");
        this.runtimeDir = directory(config.runtime_directory(), distribution, "bundle");
        this.deployDir = directory(config.deploy_directory(), home.directory(), "deploy");
        this.timeoutNanos = timeout(config);
        LOG.log(Level.INFO, "features: {0}, repository {1}, installed into {2}", featuresDir, repositoryDir,
                deployDir);
    }

    @Modified
    void modified(FeaturesConfig config) {
        try {
            timeoutNanos = timeout(config); // the directories are read at activation: changing one reactivates
        } catch (IllegalArgumentException e) {
            LOG.log(Level.ERROR, "configuration change refused, the running configuration stays: {0}",
                    e.getMessage());
        }
    }

    private static long timeout(FeaturesConfig config) {
        long ms = config.timeout_ms();
        if (ms < 1000 || ms > 600_000) {
            throw new IllegalArgumentException(PID + ": timeout.ms=" + ms + " is invalid: must be between 1000 and "
                    + "600000");
        }
        return TimeUnit.MILLISECONDS.toNanos(ms);
    }

    private static Path directory(String configured, Path base, String child) {
        return (configured.isBlank() ? base.resolve(child) : Path.of(configured).toAbsolutePath()).normalize();
    }

    /** One bundle of a feature: where its jar is, what it is, and the installed bundle if there is one. */
    record Member(ID id, Path jar, boolean runtime, String symbolicName, Version version, Bundle bundle) {

        String state() {
            if (jar == null) {
                return "not in the repository";
            }
            if (bundle == null) {
                return "not installed";
            }
            return switch (bundle.getState()) {
                case Bundle.ACTIVE -> "Active";
                case Bundle.RESOLVED -> fragment(bundle) ? "Fragment" : "Resolved";
                case Bundle.INSTALLED -> "Installed";
                case Bundle.STARTING -> "Starting";
                case Bundle.STOPPING -> "Stopping";
                default -> "Uninstalled";
            };
        }

        boolean running() {
            return bundle != null && (bundle.getState() == Bundle.ACTIVE
                    || (fragment(bundle) && bundle.getState() == Bundle.RESOLVED));
        }
    }

    /** A feature as this node sees it now. */
    record View(String name, Feature feature, Path file, List<Member> members) {

        String version() {
            return feature.getID().getVersion();
        }

        boolean required() {
            return feature.getCategories().contains(REQUIRED);
        }

        /** Every bundle installed: the feature counts as installed (its bundles may still be starting). */
        boolean installed() {
            return members.stream().allMatch(m -> m.bundle() != null);
        }

        /** Karaf's words: Started (every bundle active), Installed, Partial (some bundles), Uninstalled. */
        String state() {
            if (members.stream().allMatch(Member::running)) {
                return "Started";
            }
            if (installed()) {
                return "Installed";
            }
            return members.stream().anyMatch(m -> m.bundle() != null && !m.runtime()) ? "Partial" : "Uninstalled";
        }
    }

    /** The features in the features directory, by name; files that do not read are logged and left out. */
    public synchronized List<View> list() {
        return List.copyOf(catalog().values());
    }

    public synchronized View info(String name) {
        return find(catalog(), name);
    }

    /** @return what was done, for the shell */
    public synchronized String install(String name) throws IOException, BundleException {
        Map<String, View> catalog = catalog();
        View view = find(catalog, name);
        List<String> missing = view.members().stream().filter(m -> m.jar() == null).map(m -> m.id().toString())
                .toList();
        if (!missing.isEmpty()) {
            throw new IllegalStateException("feature " + name + " cannot be installed: " + String.join(", ", missing)
                    + (missing.size() == 1 ? " is" : " are") + " in neither " + repositoryDir + " nor " + runtimeDir
                    + "; nothing was changed");
        }
        for (String category : view.feature().getCategories()) {
            if (category.startsWith(EXCLUSIVE)) {
                for (View other : catalog.values()) {
                    if (other != view && other.installed() && other.feature().getCategories().contains(category)) {
                        throw new IllegalStateException("feature " + name + " is refused: it serves "
                                + category.substring(EXCLUSIVE.length()) + ", which the installed feature "
                                + other.name() + " serves, and only one may; feature:uninstall " + other.name()
                                + " first; nothing was changed");
                    }
                }
            }
        }
        if (view.members().stream().allMatch(Member::running)) {
            return "feature " + name + " is already installed";
        }
        List<String> created = applyConfigurations(view);
        List<Member> placed = new ArrayList<>();
        for (Member m : view.members()) {
            if (m.bundle() == null) {
                if (m.runtime()) {
                    // a runtime bundle someone uninstalled: back from bundle/ directly, the launcher's way
                    Bundle b = context.installBundle(m.jar().toUri().toString());
                    if (!fragment(b)) {
                        b.start();
                    }
                } else {
                    place(m.jar());
                }
                placed.add(m);
            } else if (!m.running() && !fragment(m.bundle())) {
                m.bundle().start();
            }
        }
        await("feature " + name + "'s bundles to start", () -> current(view).stream().allMatch(Member::running),
                () -> current(view).stream().filter(m -> !m.running())
                        .map(m -> m.symbolicName() + " " + m.state()).collect(Collectors.joining(", ")));
        LOG.log(Level.INFO, "feature {0} installed: {1} bundle(s) placed, configurations created: {2}", name,
                placed.size(), created);
        return "feature " + name + " installed: " + placed.size() + " bundle(s) installed ("
                + placed.stream().map(m -> m.symbolicName()).collect(Collectors.joining(", ")) + "), "
                + (created.isEmpty() ? "no configuration created" : "configurations created: "
                        + String.join(", ", created));
    }

    /** @return what was done, for the shell */
    public synchronized String uninstall(String name) throws IOException, BundleException {
        Map<String, View> catalog = catalog();
        View view = find(catalog, name);
        if (view.required()) {
            throw new IllegalStateException("feature " + name + " is required: it is the node's runtime and the node "
                    + "would stop serving without it; stop the node instead");
        }
        if (view.members().stream().noneMatch(m -> m.bundle() != null && !m.runtime())) {
            return "feature " + name + " is not installed";
        }
        Map<String, String> neededBy = new TreeMap<>();
        for (View other : catalog.values()) {
            if (other != view && other.installed()) {
                other.members().forEach(m -> neededBy.putIfAbsent(m.symbolicName(), other.name()));
            }
        }
        List<Bundle> removed = new ArrayList<>();
        List<String> kept = new ArrayList<>();
        for (Member m : view.members()) {
            if (m.bundle() == null || m.runtime()) {
                continue;
            }
            String other = neededBy.get(m.symbolicName());
            if (other != null) {
                kept.add(m.symbolicName() + " (feature " + other + ")");
                continue;
            }
            Path placedAt = deployed(m.bundle());
            if (placedAt != null) {
                Files.deleteIfExists(placedAt); // FileInstall uninstalls it and refreshes what was wired to it
            } else {
                m.bundle().uninstall();
                context.getBundle(Constants.SYSTEM_BUNDLE_LOCATION).adapt(FrameworkWiring.class)
                        .refreshBundles(List.of(m.bundle()));
            }
            removed.add(m.bundle());
        }
        await("feature " + name + "'s bundles to be uninstalled",
                () -> removed.stream().allMatch(b -> b.getState() == Bundle.UNINSTALLED),
                () -> removed.stream().filter(b -> b.getState() != Bundle.UNINSTALLED)
                        .map(Bundle::getSymbolicName).collect(Collectors.joining(", ")) + " still installed");
        List<String> deleted = deleteConfigurations(name);
        LOG.log(Level.INFO, "feature {0} uninstalled: {1} bundle(s) removed, configurations deleted: {2}", name,
                removed.size(), deleted);
        return "feature " + name + " uninstalled: " + removed.size() + " bundle(s) removed ("
                + removed.stream().map(Bundle::getSymbolicName).collect(Collectors.joining(", ")) + ")"
                + (kept.isEmpty() ? "" : ", kept: " + String.join(", ", kept)) + ", "
                + (deleted.isEmpty() ? "no configuration deleted" : "configurations deleted: "
                        + String.join(", ", deleted));
    }

    private View find(Map<String, View> catalog, String name) {
        View v = catalog.get(name);
        if (v == null) {
            throw new IllegalArgumentException("no feature named " + name + " in " + featuresDir + " (there "
                    + (catalog.size() == 1 ? "is 1" : "are " + catalog.size()) + ": "
                    + String.join(", ", catalog.keySet()) + ")");
        }
        return v;
    }

    private Map<String, View> catalog() {
        Map<String, View> out = new TreeMap<>();
        if (!Files.isDirectory(featuresDir)) {
            LOG.log(Level.WARNING, "features: {0} is not a directory: no features", featuresDir);
            return out;
        }
        List<Bundle> installed = List.of(context.getBundles());
        try (DirectoryStream<Path> files = Files.newDirectoryStream(featuresDir, "*.json")) {
            for (Path file : files) {
                Feature feature;
                try (Reader in = Files.newBufferedReader(file)) {
                    feature = featureService.readFeature(in);
                } catch (IOException | RuntimeException e) {
                    LOG.log(Level.WARNING, "features: {0} is not a feature, left out: {1}", file, e.toString());
                    continue;
                }
                String name = feature.getName().orElse(file.getFileName().toString().replaceFirst("\\.json$", ""));
                List<Member> members = new ArrayList<>();
                for (FeatureBundle b : feature.getBundles()) {
                    members.add(member(b.getID(), installed));
                }
                View previous = out.putIfAbsent(name, new View(name, feature, file, List.copyOf(members)));
                if (previous != null) {
                    LOG.log(Level.WARNING, "features: {0} names a feature {1} as {2} does; left out", file, name,
                            previous.file());
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("features: cannot read " + featuresDir + ": " + e.getMessage(), e);
        }
        return out;
    }

    private Member member(ID id, List<Bundle> installed) {
        String file = id.getArtifactId() + "-" + id.getVersion() + id.getClassifier().map(c -> "-" + c).orElse("")
                + "." + id.getType().orElse("jar");
        Path inRepository = repositoryDir.resolve(id.getGroupId().replace('.', '/')).resolve(id.getArtifactId())
                .resolve(id.getVersion()).resolve(file);
        Path inRuntime = runtimeDir.resolve(file);
        Path jar = Files.isRegularFile(inRepository) ? inRepository : Files.isRegularFile(inRuntime) ? inRuntime : null;
        if (jar == null) {
            return new Member(id, null, false, id.getArtifactId(), null, null);
        }
        String bsn;
        Version version;
        try (JarFile j = new JarFile(jar.toFile())) {
            Manifest mf = j.getManifest();
            String header = mf == null ? null : mf.getMainAttributes().getValue(Constants.BUNDLE_SYMBOLICNAME);
            if (header == null) {
                throw new IllegalStateException(jar + " is not an OSGi bundle (no Bundle-SymbolicName)");
            }
            bsn = header.split(";", 2)[0].trim();
            version = Version.parseVersion(mf.getMainAttributes().getValue(Constants.BUNDLE_VERSION));
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + jar + ": " + e.getMessage(), e);
        }
        return new Member(id, jar, jar == inRuntime, bsn, version, installed(installed, bsn, version));
    }

    /** Copies a jar into deploy/ under a name FileInstall ignores, forces it to disk, then renames it in place. */
    private void place(Path jar) throws IOException {
        Files.createDirectories(deployDir);
        Path target = deployDir.resolve(jar.getFileName());
        Path part = deployDir.resolve("." + jar.getFileName() + ".part");
        Files.copy(jar, part, StandardCopyOption.REPLACE_EXISTING);
        try (FileChannel ch = FileChannel.open(part, StandardOpenOption.WRITE)) {
            ch.force(true);
        }
        Files.move(part, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        try (FileChannel dir = FileChannel.open(deployDir, StandardOpenOption.READ)) {
            dir.force(true);
        }
    }

    /** @return the file in deploy/ a bundle was installed from, or null if it came from elsewhere */
    private Path deployed(Bundle bundle) {
        try {
            URI location = URI.create(bundle.getLocation());
            if (!"file".equals(location.getScheme())) {
                return null;
            }
            Path file = Path.of(location).toAbsolutePath().normalize();
            return deployDir.equals(file.getParent()) ? file : null;
        } catch (IllegalArgumentException e) {
            return null; // not a URI: installed by some other means
        }
    }

    private List<String> applyConfigurations(View view) throws IOException {
        List<String> created = new ArrayList<>();
        for (FeatureConfiguration fc : view.feature().getConfigurations().values()) {
            if (exists(fc.getPid())) {
                continue; // the operator's etc/*.cfg, or an earlier install's: it stays as it is
            }
            Optional<String> factory = fc.getFactoryPid();
            Configuration c = factory.isPresent()
                    ? configurationAdmin.getFactoryConfiguration(factory.get(),
                            fc.getPid().substring(fc.getPid().indexOf('~') + 1), "?")
                    : configurationAdmin.getConfiguration(fc.getPid(), "?");
            Dictionary<String, Object> props = new Hashtable<>(fc.getValues());
            props.put(MARKER, view.name());
            c.update(props);
            created.add(fc.getPid());
        }
        return created;
    }

    private boolean exists(String pid) throws IOException {
        try {
            Configuration[] found = configurationAdmin.listConfigurations("(" + Constants.SERVICE_PID + "="
                    + pid + ")");
            return found != null && found.length > 0;
        } catch (InvalidSyntaxException e) {
            throw new IllegalArgumentException("configuration PID " + pid + " cannot be searched for: "
                    + e.getMessage(), e);
        }
    }

    /** @return the configurations this feature created, each with whether it is present now */
    Map<String, Boolean> configurations(View view) throws IOException {
        Map<String, Boolean> out = new LinkedHashMap<>();
        for (String pid : view.feature().getConfigurations().keySet()) {
            out.put(pid, exists(pid));
        }
        return out;
    }

    Set<String> createdBy(String name) throws IOException {
        return configurationsCreatedBy(name).stream().map(Configuration::getPid).collect(Collectors.toSet());
    }

    private List<Configuration> configurationsCreatedBy(String name) throws IOException {
        try {
            Configuration[] found = configurationAdmin.listConfigurations("(" + MARKER + "=" + name + ")");
            return found == null ? List.of() : List.of(found);
        } catch (InvalidSyntaxException e) {
            throw new IllegalArgumentException("feature name " + name + " cannot be searched for: " + e.getMessage(),
                    e);
        }
    }

    private List<String> deleteConfigurations(String name) throws IOException {
        List<String> deleted = new ArrayList<>();
        for (Configuration c : configurationsCreatedBy(name)) {
            deleted.add(c.getPid());
            c.delete();
        }
        return deleted;
    }

    /** The view's members with the bundles installed now (the jars are not read again). */
    private List<Member> current(View view) {
        List<Bundle> installed = List.of(context.getBundles());
        return view.members().stream().map(m -> new Member(m.id(), m.jar(), m.runtime(), m.symbolicName(),
                m.version(), installed(installed, m.symbolicName(), m.version()))).toList();
    }

    private static Bundle installed(List<Bundle> bundles, String bsn, Version version) {
        if (version == null) {
            return null; // not in the repository: nothing to match
        }
        return bundles.stream().filter(b -> bsn.equals(b.getSymbolicName()) && version.equals(b.getVersion())
                && b.getState() != Bundle.UNINSTALLED).findFirst().orElse(null);
    }

    /**
     * Waits for FileInstall (which polls deploy/) and the framework: woken by every bundle event, and at least every
     * 200 ms because a bundle may reach its state between two events this listener saw.
     */
    private void await(String what, BooleanSupplier done, java.util.function.Supplier<String> detail) {
        Object signal = new Object();
        BundleListener listener = e -> {
            synchronized (signal) {
                signal.notifyAll();
            }
        };
        context.addBundleListener(listener);
        try {
            long deadline = System.nanoTime() + timeoutNanos;
            synchronized (signal) {
                while (!done.getAsBoolean()) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        throw new IllegalStateException("gave up waiting for " + what + " after "
                                + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms: " + detail.get()
                                + "; see the node's log");
                    }
                    signal.wait(Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(left), 200)));
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + what, e);
        } finally {
            context.removeBundleListener(listener);
        }
    }

    private static boolean fragment(Bundle bundle) {
        return bundle.getHeaders("").get(Constants.FRAGMENT_HOST) != null;
    }
}
