package tandem.failover;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

@ObjectClassDefinition(id = FailoverSettings.PID, name = "Tandem failover group",
        description = "Automatic failover: the nodes of a group run a Raft log of metadata (members, the primary, its "
                + "epoch) on Apache Ratis; when the primary is gone the group promotes the replica holding the most "
                + "history and re-points the others.")
public @interface FailoverConfig {

    @AttributeDefinition(description = "The group's name, the same on every member; Sentinel clients ask for it "
            + "as the master name.")
    String group() default "tandem";

    @AttributeDefinition(description = "This node's id in the group (letters, digits, '.', '_', '-'); it must "
            + "appear in peers.")
    String node_id() default "";

    @AttributeDefinition(description = "Every voter of the group, this node included, comma-separated: "
            + "id@IP:raftPort. Three voters survive the loss of one. Read when this node's Raft storage is new: it "
            + "forms the group, or names the members a node joining with failover:add will find; from then on the "
            + "members are what the group's log says (failover:add, failover:remove).")
    String peers() default "";

    @AttributeDefinition(description = "IP address literal the Raft peer binds to.")
    String raft_bind() default "127.0.0.1";

    @AttributeDefinition(description = "TCP port of the Raft peer; 0 takes this node's port from peers.")
    int raft_port() default 0;

    @AttributeDefinition(description = "A witness votes but holds no data: it is never promoted and refuses "
            + "client writes. A primary, one replica and a witness make three voters.")
    boolean witness() default false;

    @AttributeDefinition(description = "This node joins a group that already runs, and waits to be added with "
            + "failover:add: its Raft peer forms no group of its own and stands for no election until the leader adds "
            + "it (a candidate its peers do not know is told to shut down). Read only while its Raft storage is new.")
    boolean join() default false;

    @AttributeDefinition(description = "Carries the group's Raft traffic over mutual TLS (default false), with the "
            + "certificate and CAs of etc/tandem.tls.cfg: every member must set it, and each member's certificate must "
            + "name its Raft address (an IP subject alternative name), which gRPC verifies. A change restarts this "
            + "node's Raft peer.")
    boolean tls() default false;

    @AttributeDefinition(description = "Whether the group promotes a replica by itself when the primary is gone. "
            + "Off: the group only reports, and keeps the primary's lease out of the write path. Applies live.")
    boolean automatic() default true;

    @AttributeDefinition(description = "How long the primary must be silent (no report reached the Raft leader) "
            + "before a replica is promoted, in milliseconds (200..600000; at least lease.ms + 2 × "
            + "report.interval.ms). Applies live.")
    int down_after_ms() default 1000;

    @AttributeDefinition(description = "The primary's write lease in milliseconds (50..600000): it refuses writes "
            + "once this long has passed since the last report the Raft majority confirmed. Applies live.")
    int lease_ms() default 600;

    @AttributeDefinition(description = "How often each node reports its role and journal tip to the Raft leader, "
            + "in milliseconds (10..10000). Applies live.")
    int report_interval_ms() default 100;

    @AttributeDefinition(description = "Lower bound of Raft's randomized election timeout in milliseconds "
            + "(50..60000). A change restarts this node's Raft peer.")
    int election_timeout_min_ms() default 150;

    @AttributeDefinition(description = "Upper bound of Raft's randomized election timeout in milliseconds "
            + "(above election.timeout.min.ms, up to 120000). A change restarts this node's Raft peer.")
    int election_timeout_max_ms() default 300;

    @AttributeDefinition(description = "Promote under the disk ack policy too. Writes acknowledged by the lost "
            + "primary that no replica received are then lost; off, the group refuses and says so. Applies live.")
    boolean lossy() default false;

    @AttributeDefinition(description = "How long the group waits for a node whose failover component is being "
            + "updated or stopped (it says so before it goes) before it counts as gone, in milliseconds "
            + "(0..600000). Applies live.")
    int update_grace_ms() default 10_000;

    @AttributeDefinition(description = "Where the Raft log is kept; empty means <tandem.home>/data/failover.")
    String storage_directory() default "";
}
