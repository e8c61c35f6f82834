package tandem.system;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Hosts of the test's own, for faults that cross a network: one network namespace per host, each with a veth pair
 * into a bridge in the test's namespace, all on one /24 ({@code 10.77.<n>.0}; the bridge is {@code .1}, host
 * {@code i} is {@code .(i+2)}). The test process reaches every host through the bridge; a {@linkplain #partition
 * partition} cuts hosts from each other, not from the test, so clients still reach both sides as they would across a
 * real switch.
 *
 * <p>A partition is a blackhole route on each side for the other side's address: what a cut-off host sends is
 * dropped before it leaves, an established connection stalls until its retransmissions time out, a new one fails
 * at once (as behind a router answering unreachable). Traffic-control filters would drop packets on the wire instead,
 * but this kernel has neither the classifier nor the drop action; routes need nothing beyond iproute2. The tests run
 * as root (in CI too).
 */
final class Netns implements AutoCloseable {

    /** One host: its namespace and address. */
    record Host(String namespace, String ip) {
        /** @return the command prefix that runs a program inside this host */
        List<String> exec() {
            return List.of("ip", "netns", "exec", namespace);
        }
    }

    private final String bridge;
    private final List<Host> hosts;
    private final Set<String> routes = new LinkedHashSet<>();

    private Netns(String bridge, List<Host> hosts) {
        this.bridge = bridge;
        this.hosts = hosts;
    }

    /** Creates {@code count} hosts on a /24 no other run of the tests uses now. */
    static Netns create(int count) throws IOException {
        for (int attempt = 0; attempt < 20; attempt++) {
            int n = 10 + ThreadLocalRandom.current().nextInt(240);
            String bridge = "tnb" + n;
            if (ip("link", "add", bridge, "type", "bridge").exit() != 0) {
                continue; // another run holds this subnet
            }
            Netns net = new Netns(bridge, new ArrayList<>());
            try {
                must(ip("addr", "add", "10.77." + n + ".1/24", "dev", bridge));
                must(ip("link", "set", bridge, "up"));
                for (int i = 0; i < count; i++) {
                    Host h = new Host("tn" + n + "h" + i, "10.77." + n + "." + (i + 2));
                    String veth = "tn" + n + "v" + i;
                    must(ip("netns", "add", h.namespace()));
                    net.hosts.add(h);
                    must(ip("link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", h.namespace()));
                    must(ip("link", "set", veth, "master", bridge, "up"));
                    must(ip("-n", h.namespace(), "addr", "add", h.ip() + "/24", "dev", "eth0"));
                    must(ip("-n", h.namespace(), "link", "set", "eth0", "up"));
                    must(ip("-n", h.namespace(), "link", "set", "lo", "up"));
                }
                return net;
            } catch (IOException | RuntimeException | AssertionError e) {
                net.close();
                throw e;
            }
        }
        throw new IOException("no free 10.77.n.0/24 for the test's hosts after 20 tries");
    }

    List<Host> hosts() {
        return hosts;
    }

    /** Cuts {@code side} off from every other host, both ways; the test still reaches all of them. */
    void partition(Collection<Host> side) throws IOException {
        for (Host in : side) {
            for (Host out : hosts) {
                if (!side.contains(out)) {
                    blackhole(in, out);
                    blackhole(out, in);
                }
            }
        }
    }

    private void blackhole(Host on, Host to) throws IOException {
        if (routes.add(on.namespace() + " " + to.ip())) {
            must(ip("-n", on.namespace(), "route", "add", "blackhole", to.ip() + "/32"));
        }
    }

    /** Removes every partition. */
    void heal() throws IOException {
        for (String r : List.copyOf(routes)) {
            String[] f = r.split(" ");
            must(ip("-n", f[0], "route", "del", "blackhole", f[1] + "/32"));
            routes.remove(r);
        }
    }

    @Override
    public void close() {
        for (Host h : hosts) {
            try {
                ip("netns", "del", h.namespace()); // takes its end of the veth pair, and so the pair, with it
            } catch (IOException e) {
                // best effort, as the bridge below
            }
        }
        try {
            ip("link", "del", bridge);
        } catch (IOException e) {
            // nothing more to do: a leftover bridge blocks only its own subnet, which the next run skips
        }
    }

    private static TandemNode.Result ip(String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of("ip"));
        command.addAll(List.of(args));
        return TandemNode.run(Duration.ofSeconds(10), command.toArray(new String[0]));
    }

    private static void must(TandemNode.Result r) {
        if (r.exit() != 0) {
            throw new AssertionError("ip failed (exit " + r.exit() + "): " + r.err());
        }
    }
}
