package tandem.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import tandem.api.server.ClientInfo;
import tandem.server.command.ClientSession;
import tandem.server.command.Commands;
import tandem.server.command.RedisConfig;
import tandem.server.command.ServerContext;
import tandem.server.resp.RespRequestDecoder;

/**
 * The decoder and the connection handler together on an {@link EmbeddedChannel}: request bytes in, exact reply
 * bytes out, each script fed whole and byte by byte.
 */
class RespConnectionHandlerTest {

    private static final long CLIENT_ID = 7;

    private static final String HELLO_2_REPLY = "*14\r\n"
            + "$6\r\nserver\r\n$5\r\nredis\r\n"
            + "$7\r\nversion\r\n$5\r\n7.0.0\r\n"
            + "$5\r\nproto\r\n:2\r\n"
            + "$2\r\nid\r\n:" + CLIENT_ID + "\r\n"
            + "$4\r\nmode\r\n$10\r\nstandalone\r\n"
            + "$4\r\nrole\r\n$6\r\nmaster\r\n"
            + "$7\r\nmodules\r\n*0\r\n";

    private final List<EmbeddedChannel> channels = new ArrayList<>();
    private final FakeServer server = new FakeServer();
    private ClientSession session;

    @AfterEach
    void releaseAll() {
        for (EmbeddedChannel channel : channels) {
            channel.finishAndReleaseAll();
        }
    }

    // ---- basic commands -------------------------------------------------------------------------------------

    @Test
    @Timeout(10)
    void ping() {
        assertReplies("*1\r\n$4\r\nPING\r\n", "+PONG\r\n");
        assertReplies("PING\r\n", "+PONG\r\n");
        assertReplies("ping\n", "+PONG\r\n");
    }

    @Test
    @Timeout(10)
    void pingWithMessage() {
        assertReplies("*2\r\n$4\r\nPING\r\n$5\r\nhello\r\n", "$5\r\nhello\r\n");
        assertReplies("PING \"\"\r\n", "$0\r\n\r\n");
        assertReplies("PING a b\r\n", "-ERR wrong number of arguments for 'ping' command\r\n");
    }

    @Test
    @Timeout(10)
    void echo() {
        assertReplies("*2\r\n$4\r\nECHO\r\n$6\r\na\r\n\0bc\r\n", "$6\r\na\r\n\0bc\r\n");
        assertReplies("ECHO \"\\xff\"\r\n", "$1\r\n\u00ff\r\n");
    }

    @Test
    @Timeout(10)
    void pipelinedRepliesComeInOrder() {
        assertReplies("PING\r\n*2\r\n$4\r\necho\r\n$1\r\nx\r\nPING y\r\n", "+PONG\r\n$1\r\nx\r\n$1\r\ny\r\n");
    }

    @Test
    @Timeout(10)
    void blankLinesAndEmptyMultibulkGetNoReply() {
        assertReplies("\r\n\n*0\r\n*-1\r\n   \r\nPING\r\n", "+PONG\r\n");
    }

    @Test
    @Timeout(10)
    void repliesOfOneReadBatchAreFlushedInOneWrite() {
        EmbeddedChannel channel = newChannel(1 << 20);
        write(channel, bytes("PING\r\nPING\r\nECHO a\r\n"));
        ByteBuf first = channel.readOutbound();
        try {
            assertThat(first.toString(StandardCharsets.ISO_8859_1)).isEqualTo("+PONG\r\n+PONG\r\n$1\r\na\r\n");
        } finally {
            first.release();
        }
        assertThat((Object) channel.readOutbound()).isNull();
        write(channel, bytes("\r\n"));
        assertThat((Object) channel.readOutbound()).as("no write for a batch without replies").isNull();
    }

    // ---- dispatch errors --------------------------------------------------------------------------------------

    @Test
    @Timeout(10)
    void unknownCommand() {
        assertReplies("foo a bb\r\n", "-ERR unknown command 'foo', with args beginning with: 'a' 'bb' \r\n");
        assertReplies("FOOO\r\n", "-ERR unknown command 'FOOO', with args beginning with: \r\n");
    }

    @Test
    @Timeout(10)
    void unknownCommandSanitizesAndTruncates() {
        // CR and LF in the arguments become spaces; %s stops at NUL
        assertReplies("*3\r\n$3\r\nfoo\r\n$4\r\na\r\nb\r\n$3\r\nc\0d\r\n",
                "-ERR unknown command 'foo', with args beginning with: 'a  b' 'c' \r\n");
        String x200 = "x".repeat(200);
        assertReplies("foo " + x200 + "\r\n",
                "-ERR unknown command 'foo', with args beginning with: '" + "x".repeat(128) + "' \r\n");
        assertReplies("foo " + "a".repeat(100) + " " + "b".repeat(100) + " c\r\n",
                "-ERR unknown command 'foo', with args beginning with: '" + "a".repeat(100) + "' '"
                        + "b".repeat(25) + "' \r\n");
        assertReplies(x200 + "\r\n",
                "-ERR unknown command '" + "x".repeat(128) + "', with args beginning with: \r\n");
    }

    @Test
    @Timeout(10)
    void unknownCommandEchoesRawBytes() {
        // Redis prints the bytes as they came: Latin-1 here, not re-encoded as UTF-8
        assertReplies("*2\r\n$2\r\n\u00e9\u00ff\r\n$1\r\n\u0080\r\n",
                "-ERR unknown command '\u00e9\u00ff', with args beginning with: '\u0080' \r\n");
    }

    @Test
    @Timeout(10)
    void wrongArity() {
        assertReplies("ECHO\r\n", "-ERR wrong number of arguments for 'echo' command\r\n");
        assertReplies("echo a b\r\n", "-ERR wrong number of arguments for 'echo' command\r\n");
        assertReplies("CONFIG GET\r\n", "-ERR wrong number of arguments for 'config|get' command\r\n");
        assertReplies("CLIENT SETNAME\r\n", "-ERR wrong number of arguments for 'client|setname' command\r\n");
        assertReplies("COMMAND COUNT x\r\n", "-ERR wrong number of arguments for 'command|count' command\r\n");
        assertReplies("CONFIG\r\n", "-ERR wrong number of arguments for 'config' command\r\n");
        assertReplies("CLIENT\r\n", "-ERR wrong number of arguments for 'client' command\r\n");
        assertReplies("SELECT\r\n", "-ERR wrong number of arguments for 'select' command\r\n");
    }

    @Test
    @Timeout(10)
    void unknownSubcommand() {
        assertReplies("CONFIG FOO\r\n", "-ERR unknown subcommand 'FOO'. Try CONFIG HELP.\r\n");
        assertReplies("config foo bar\r\n", "-ERR unknown subcommand 'foo'. Try CONFIG HELP.\r\n");
        assertReplies("client nope\r\n", "-ERR unknown subcommand 'nope'. Try CLIENT HELP.\r\n");
        assertReplies("Command x\r\n", "-ERR unknown subcommand 'x'. Try COMMAND HELP.\r\n");
    }

    @Test
    @Timeout(10)
    void commandNamesAreCaseInsensitive() {
        assertReplies("pInG\r\nClient GetName\r\n", "+PONG\r\n$-1\r\n");
    }

    // ---- SELECT ---------------------------------------------------------------------------------------------

    @Test
    @Timeout(10)
    void select() {
        assertReplies("SELECT 0\r\n", "+OK\r\n");
        assertReplies("SELECT 15\r\n", "+OK\r\n");
        assertReplies("SELECT 16\r\n", "-ERR DB index is out of range\r\n");
        assertReplies("SELECT -1\r\n", "-ERR DB index is out of range\r\n");
        assertReplies("SELECT x\r\n", "-ERR value is not an integer or out of range\r\n");
        assertReplies("SELECT 00\r\n", "-ERR value is not an integer or out of range\r\n");
        assertReplies("SELECT 99999999999999999999\r\n", "-ERR value is not an integer or out of range\r\n");
    }

    @Test
    @Timeout(10)
    void selectOutsideIntRange() {
        // getIntFromObjectOrReply: a valid long that does not fit an int has its own message
        String outOfRange = "-ERR value is out of range, value must between -2147483648 and 2147483647\r\n";
        assertReplies("SELECT 2147483648\r\n", outOfRange);
        assertReplies("SELECT -2147483649\r\n", outOfRange);
        assertReplies("SELECT 9223372036854775807\r\n", outOfRange);
        assertReplies("SELECT -9223372036854775808\r\n", outOfRange);
        assertReplies("SELECT 2147483647\r\n", "-ERR DB index is out of range\r\n");
    }

    // ---- CLIENT ---------------------------------------------------------------------------------------------

    @Test
    @Timeout(10)
    void clientSetnameAndGetname() {
        assertReplies("CLIENT GETNAME\r\nCLIENT SETNAME conn-1\r\nCLIENT GETNAME\r\n",
                "$-1\r\n+OK\r\n$6\r\nconn-1\r\n");
    }

    @Test
    @Timeout(10)
    void clientSetnameRefusesSpacesAndSpecialCharacters() {
        String refused = "-ERR Client names cannot contain spaces, newlines or special characters.\r\n";
        assertReplies("CLIENT SETNAME 'a b'\r\nCLIENT GETNAME\r\n", refused + "$-1\r\n");
        assertReplies("CLIENT SETNAME \"a\\nb\"\r\n", refused);
        assertReplies("CLIENT SETNAME \"\\xe9\"\r\n", refused);
        assertReplies("CLIENT SETNAME \"\\x7f\"\r\n", refused);
    }

    @Test
    @Timeout(10)
    void clientSetnameEmptyClearsTheName() {
        assertReplies("CLIENT SETNAME a\r\nCLIENT SETNAME \"\"\r\nCLIENT GETNAME\r\n", "+OK\r\n+OK\r\n$-1\r\n");
    }

    @Test
    @Timeout(10)
    void clientId() {
        assertReplies("CLIENT ID\r\n", ":7\r\n");
        assertReplies("client id extra\r\n", "-ERR wrong number of arguments for 'client|id' command\r\n");
    }

    @Test
    @Timeout(10)
    void clientList() {
        server.clients.add(new ClientInfo(7, "", "127.0.0.1:5000", 3, 1, "client"));
        server.clients.add(new ClientInfo(9, "worker", "127.0.0.1:5001", 10, 0, ""));
        String fields = " multi=-1 qbuf=0 qbuf-free=0 argv-mem=0 multi-mem=0 rbs=0 rbp=0 obl=0 oll=0 omem=0 tot-mem=0 "
                + "events=r ";
        String list = "id=7 addr=127.0.0.1:5000 laddr= fd=-1 name= age=3 idle=1 flags=N db=0 sub=0 psub=0 ssub=0"
                + fields + "cmd=client user=default redir=-1 resp=2\n"
                + "id=9 addr=127.0.0.1:5001 laddr= fd=-1 name=worker age=10 idle=0 flags=N db=0 sub=0 psub=0 ssub=0"
                + fields + "cmd=NULL user=default redir=-1 resp=2\n";
        assertReplies("CLIENT LIST\r\n", "$" + list.length() + "\r\n" + list + "\r\n");
        assertReplies("CLIENT LIST TYPE normal\r\n", "$" + list.length() + "\r\n" + list + "\r\n");
        assertReplies("CLIENT LIST TYPE replica\r\n", "$0\r\n\r\n");
        assertReplies("CLIENT LIST TYPE foo\r\n", "-ERR Unknown client type 'foo'\r\n");
        String nine = "id=9 addr=127.0.0.1:5001 laddr= fd=-1 name=worker age=10 idle=0 flags=N db=0 sub=0 psub=0 "
                + "ssub=0" + fields + "cmd=NULL user=default redir=-1 resp=2\n";
        assertReplies("CLIENT LIST ID 9 5 9\r\n", "$" + 2 * nine.length() + "\r\n" + nine + nine + "\r\n");
        assertReplies("CLIENT LIST ID 9 x\r\n", "-ERR Invalid client ID\r\n");
        assertReplies("CLIENT LIST FOO\r\n", "-ERR syntax error\r\n");
    }

    @Test
    @Timeout(10)
    void clientInfo() {
        String reply = run(bytes("CLIENT SETNAME me\r\nCLIENT INFO\r\n"), true).replies;
        assertThat(reply).startsWith("+OK\r\n$").endsWith("\n\r\n")
                .contains("\r\nid=7 addr=127.0.0.1:5000 laddr= fd=-1 name=me age=")
                .contains(" cmd=client|info user=default redir=-1 resp=2\n");
    }

    @Test
    @Timeout(10)
    void clientHelp() {
        String reply = run(bytes("CLIENT HELP\r\n"), true).replies;
        assertThat(reply).startsWith("*33\r\n+CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n"
                + "+ID\r\n+    Returns the unique client ID of the connection.\r\n");
    }

    @Test
    @Timeout(10)
    void clientReplyOffOnAndSkip() {
        assertReplies("CLIENT REPLY OFF\r\nPING\r\nECHO x\r\nCLIENT REPLY ON\r\nPING\r\n", "+OK\r\n+PONG\r\n");
        // SKIP drops its own reply and the next one (PING's); the nested one after it is whole
        assertReplies("CLIENT REPLY SKIP\r\nPING\r\nCOMMAND INFO nosuch\r\nECHO y\r\n", "*1\r\n$-1\r\n$1\r\ny\r\n");
        assertReplies("CLIENT REPLY MAYBE\r\nCLIENT REPLY\r\n", "-ERR syntax error\r\n"
                + "-ERR wrong number of arguments for 'client|reply' command\r\n");
    }

    @Test
    @Timeout(10)
    void clientPauseIsCheckedAsRedisChecksIt() {
        assertReplies("CLIENT PAUSE 10 WRITE x\r\n",
                "-ERR unknown subcommand or wrong number of arguments for 'PAUSE'. Try CLIENT HELP.\r\n");
        assertReplies("CLIENT PAUSE x\r\n", "-ERR timeout is not an integer or out of range\r\n");
        assertReplies("CLIENT PAUSE -1\r\n", "-ERR timeout is negative\r\n");
        assertReplies("CLIENT PAUSE 10 FOO\r\n", "-ERR CLIENT PAUSE mode must be WRITE or ALL\r\n");
        assertReplies("CLIENT UNPAUSE x\r\n", "-ERR wrong number of arguments for 'client|unpause' command\r\n");
        assertReplies("CLIENT PAUSE 0 write\r\nCLIENT PAUSE 0 ALL\r\nCLIENT UNPAUSE\r\n", "+OK\r\n+OK\r\n+OK\r\n");
    }

    @Test
    @Timeout(10)
    void clientUnblockIsCheckedAsRedisChecksIt() {
        // the test node has no parked client: the node's answer is 0 (Node.unblock's default)
        assertReplies("CLIENT UNBLOCK 999\r\nCLIENT UNBLOCK 999 error\r\nCLIENT UNBLOCK 999 TIMEOUT\r\n",
                ":0\r\n:0\r\n:0\r\n");
        assertReplies("CLIENT UNBLOCK x\r\n", "-ERR value is not an integer or out of range\r\n");
        assertReplies("CLIENT UNBLOCK 999 FOO\r\n", "-ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR\r\n");
        assertReplies("CLIENT unblock 1 2 3\r\n",
                "-ERR unknown subcommand or wrong number of arguments for 'unblock'. Try CLIENT HELP.\r\n");
        assertReplies("CLIENT UNBLOCK\r\n", "-ERR wrong number of arguments for 'client|unblock' command\r\n");
    }

    // ---- HELLO ----------------------------------------------------------------------------------------------

    @Test
    @Timeout(10)
    void hello2() {
        assertReplies("HELLO 2\r\n", HELLO_2_REPLY);
        assertReplies("HELLO\r\n", HELLO_2_REPLY);
    }

    @Test
    @Timeout(10)
    void hello3SwitchesTheConnectionToResp3AndHello2Back() {
        String hello3 = HELLO_2_REPLY.replace("*14\r\n", "%7\r\n").replace("proto\r\n:2", "proto\r\n:3");
        assertReplies("HELLO 3\r\nCLIENT GETNAME\r\nHELLO 2\r\nCLIENT GETNAME\r\n",
                hello3 + "_\r\n" + HELLO_2_REPLY + "$-1\r\n");
        // a failing option leaves the protocol as it was
        assertReplies("HELLO 3 BOGUS\r\nCLIENT GETNAME\r\n",
                "-ERR Syntax error in HELLO option 'BOGUS'\r\n$-1\r\n");
    }

    @Test
    @Timeout(10)
    void otherVersionsAreNotSpoken() {
        assertReplies("HELLO 1\r\n", "-NOPROTO unsupported protocol version\r\n");
        assertReplies("HELLO 4\r\n", "-NOPROTO unsupported protocol version\r\n");
        assertReplies("HELLO -1\r\n", "-NOPROTO unsupported protocol version\r\n");
        // any valid long is a version: only non-numbers are "not an integer"
        assertReplies("HELLO 4294967298\r\n", "-NOPROTO unsupported protocol version\r\n");
        assertReplies("HELLO 9223372036854775807\r\n", "-NOPROTO unsupported protocol version\r\n");
        assertReplies("HELLO -9223372036854775808\r\n", "-NOPROTO unsupported protocol version\r\n");
    }

    @Test
    @Timeout(10)
    void helloVersionNotAnInteger() {
        assertReplies("HELLO x\r\n", "-ERR Protocol version is not an integer or out of range\r\n");
        assertReplies("HELLO 02\r\n", "-ERR Protocol version is not an integer or out of range\r\n");
        assertReplies("HELLO 9223372036854775808\r\n",
                "-ERR Protocol version is not an integer or out of range\r\n");
    }

    @Test
    @Timeout(10)
    void helloOptions() {
        assertReplies("HELLO 2 FOO\r\n", "-ERR Syntax error in HELLO option 'FOO'\r\n");
        assertReplies("HELLO 2 SETNAME\r\n", "-ERR Syntax error in HELLO option 'SETNAME'\r\n");
        assertReplies("HELLO 2 AUTH user\r\n", "-ERR Syntax error in HELLO option 'AUTH'\r\n");
        assertReplies("HELLO 2 SETNAME 'a b'\r\n",
                "-ERR Client names cannot contain spaces, newlines or special characters.\r\n");
        assertReplies("HELLO 2 setname app auth default secret\r\nCLIENT GETNAME\r\n",
                HELLO_2_REPLY + "$3\r\napp\r\n");
    }

    // ---- CONFIG, INFO, COMMAND --------------------------------------------------------------------------------

    @Test
    @Timeout(10)
    void configGet() {
        assertReplies("CONFIG GET save\r\n", "*2\r\n$4\r\nsave\r\n$0\r\n\r\n");
        assertReplies("CONFIG GET SAVE\r\n", "*2\r\n$4\r\nSAVE\r\n$0\r\n\r\n");
        assertReplies("CONFIG GET nope\r\n", "*0\r\n");
        assertReplies("CONFIG GET maxcl*\r\n", "*2\r\n$10\r\nmaxclients\r\n$5\r\n10000\r\n");
        assertReplies("CONFIG GET save sav? SAVE appendonly databases io-threads\r\n", "*8\r\n"
                + "$4\r\nsave\r\n$0\r\n\r\n$10\r\nappendonly\r\n$2\r\nno\r\n"
                + "$9\r\ndatabases\r\n$2\r\n16\r\n$10\r\nio-threads\r\n$1\r\n2\r\n");
        assertReplies("CONFIG GET *-max-ziplist-entries\r\n", "*4\r\n$24\r\nhash-max-ziplist-entries\r\n"
                + "$3\r\n512\r\n$24\r\nzset-max-ziplist-entries\r\n$3\r\n128\r\n");
    }

    @Test
    @Timeout(10)
    void configHelpIsRedisText() {
        assertReplies("CONFIG HELP\r\n", "*11\r\n"
                + "+CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n"
                + "+GET <pattern>\r\n"
                + "+    Return parameters matching the glob-like <pattern> and their values.\r\n"
                + "+SET <directive> <value>\r\n"
                + "+    Set the configuration <directive> to <value>.\r\n"
                + "+RESETSTAT\r\n"
                + "+    Reset statistics reported by the INFO command.\r\n"
                + "+REWRITE\r\n"
                + "+    Rewrite the configuration file.\r\n"
                + "+HELP\r\n"
                + "+    Prints this help.\r\n");
        assertReplies("config help x\r\n", "-ERR wrong number of arguments for 'config|help' command\r\n");
    }

    @Test
    @Timeout(10)
    void configSetChecksPairsThenAppliesAllOrNothing() {
        assertReplies("CONFIG SET maxclients 100 foo\r\n", "-ERR syntax error\r\n");
        assertReplies("CONFIG SET maxclients\r\n", "-ERR wrong number of arguments for 'config|set' command\r\n");
        assertReplies("CONFIG SET foo 1\r\n",
                "-ERR Unknown option or number of arguments for CONFIG SET - 'foo'\r\n");
        // CR and LF in a name become spaces, as in every error; %s stops at NUL
        assertReplies("*4\r\n$6\r\nCONFIG\r\n$3\r\nSET\r\n$7\r\na\r\nb\0cd\r\n$1\r\n1\r\n",
                "-ERR Unknown option or number of arguments for CONFIG SET - 'a  b'\r\n");
        assertReplies("CONFIG SET maxmemory 1mb maxclients 100\r\nCONFIG GET maxmemory maxclients\r\n"
                + "CONFIG SET maxmemory 0 maxclients 10000\r\n",
                "+OK\r\n*4\r\n$9\r\nmaxmemory\r\n$7\r\n1048576\r\n$10\r\nmaxclients\r\n$3\r\n100\r\n+OK\r\n");
        assertReplies("CONFIG SET maxmemory 1mb maxmemory-policy lru\r\nCONFIG GET maxmemory\r\n",
                "-ERR CONFIG SET failed (possibly related to argument 'maxmemory-policy') - argument(s) must be one "
                        + "of the following: volatile-lru, volatile-lfu, volatile-random, volatile-ttl, allkeys-lru, "
                        + "allkeys-lfu, allkeys-random, noeviction\r\n*2\r\n$9\r\nmaxmemory\r\n$1\r\n0\r\n");
        assertThat(server.owned).containsEntry("maxclients", "10000");
        // a value keeps its bytes
        assertReplies("*4\r\n$6\r\nCONFIG\r\n$3\r\nSET\r\n$10\r\nmasterauth\r\n$2\r\n\u00e9\u00ff\r\n"
                + "CONFIG GET masterauth\r\n", "+OK\r\n*2\r\n$10\r\nmasterauth\r\n$2\r\n\u00e9\u00ff\r\n");
    }

    @Test
    @Timeout(10)
    void infoMemoryReportsMaxmemoryAsSet() {
        assertThat(run(bytes("CONFIG SET maxmemory 2mb\r\nINFO memory\r\nCONFIG SET maxmemory 0\r\n"), true)
                .replies).contains("\r\nmaxmemory:2097152\r\n");
        assertThat(run(bytes("CONFIG SET maxmemory 18446744073709551615\r\nINFO memory\r\n"
                + "CONFIG SET maxmemory 0\r\n"), true).replies).contains("\r\nmaxmemory:-1\r\n");
    }

    @Test
    @Timeout(10)
    void configResetstatAndRewrite() {
        assertReplies("CONFIG RESETSTAT\r\n", "+OK\r\n");
        assertThat(server.statResets).as("once fed whole, once byte by byte").isEqualTo(2);
        assertReplies("CONFIG RESETSTAT x\r\n",
                "-ERR wrong number of arguments for 'config|resetstat' command\r\n");
        assertReplies("CONFIG REWRITE\r\n", "-ERR The server is running without a config file\r\n");
        assertReplies("CONFIG REWRITE x\r\n", "-ERR wrong number of arguments for 'config|rewrite' command\r\n");
    }

    @Test
    @Timeout(10)
    void infoSections() {
        assertReplies("INFO nothing\r\n", "$0\r\n\r\n");
        String clients = "# Clients\r\nconnected_clients:3\r\nmaxclients:10000\r\nblocked_clients:0\r\n";
        assertReplies("INFO clients\r\n", "$" + clients.length() + "\r\n" + clients + "\r\n");
        String stats = "# Stats\r\ntotal_connections_received:42\r\ntotal_commands_processed:0\r\n"
                + "total_error_replies:0\r\nsync_full:0\r\nsync_partial_ok:0\r\nsync_partial_err:0\r\n";
        assertReplies("INFO CLIENTS stats\r\n",
                "$" + (clients.length() + 2 + stats.length()) + "\r\n" + clients + "\r\n" + stats + "\r\n");
        String all = run(bytes("INFO\r\n"), true).replies;
        assertThat(all).contains("# Server\r\nredis_version:7.0.0\r\ntandem_version:0.1.0-test\r\n")
                .contains("process_id:4242\r\nrun_id:0123456789abcdef0123456789abcdef01234567\r\n").contains("tcp_port:6379\r\n").contains(clients).contains(stats)
                .contains("# Persistence\r\nloading:0\r\ntandem_ready:1\r\njournal_enabled:0\r\napply_status:ok\r\n"
                        + "store_enabled:0\r\n")
                .endsWith("# Keyspace\r\n\r\n");
        int length = Integer.parseInt(all.substring(1, all.indexOf('\r')));
        assertThat(all.getBytes(StandardCharsets.ISO_8859_1).length)
                .isEqualTo(1 + String.valueOf(length).length() + 2 + length + 2);

        server.blockedClients = 2; // two clients parked in WAIT, while an installed snapshot waits for its journal
        server.loading = true;
        assertThat(run(bytes("INFO clients persistence\r\n"), true).replies)
                .contains("\r\nblocked_clients:2\r\n").contains("# Persistence\r\nloading:1\r\ntandem_ready:0\r\n"
                        + "tandem_not_ready_reason:loading a snapshot\r\n");
    }

    @Test
    @Timeout(10)
    void infoPersistenceShowsTheJournalArchiveAndItsLag() {
        server.journal = new tandem.api.journal.JournalStatus("/j", 1, 120, 120, 0, 0, 3, 4096, "ab", null);
        assertThat(run(bytes("INFO persistence\r\n"), true).replies).contains("journal_archive_enabled:0\r\n")
                .doesNotContain("journal_archive_status");
        server.archive = new tandem.api.journal.ArchiveStatus("/archive", 100, 20, 1, 2048, 7,
                "segment-00000000000000000051-00000000000000000100-0011223344556677", 1_700_000_000_000L, 3,
                "journal.000003", "the archive directory /archive does not exist", 1_700_000_060_000L, true);
        assertThat(run(bytes("INFO persistence\r\n"), true).replies).contains("journal_archive_enabled:1\r\n"
                + "journal_archive_directory:/archive\r\njournal_archive_status:failing\r\n"
                + "journal_archive_archived_sequence:100\r\njournal_archive_lag_entries:20\r\n"
                + "journal_archive_pending_segments:1\r\njournal_archive_pending_bytes:2048\r\n"
                + "journal_archive_archived_segments:7\r\n"
                + "journal_archive_last_archived:segment-00000000000000000051-00000000000000000100-0011223344556677"
                + "\r\njournal_archive_last_archived_time:1700000000\r\njournal_archive_failures:3\r\n"
                + "journal_archive_last_failed:journal.000003\r\n"
                + "journal_archive_last_error:the archive directory /archive does not exist\r\n"
                + "journal_archive_last_error_time:1700000060\r\n");
    }

    @Test
    @Timeout(10)
    void saveAndBgsaveNeedTheCheckpointBundleAndAreCheckedAsRedisChecksThem() {
        String none = "-ERR the checkpoint bundle (tandem.checkpoint) is not active: nothing can be saved\r\n";
        assertReplies("SAVE\r\nBGSAVE\r\nBGSAVE SCHEDULE\r\n", none + none + none);
        assertReplies("BGSAVE foo\r\nBGSAVE SCHEDULE x\r\nSAVE x\r\n", "-ERR syntax error\r\n-ERR syntax error\r\n"
                + "-ERR wrong number of arguments for 'save' command\r\n");
        assertThat(run(bytes("LASTSAVE\r\n"), true).replies).matches(":\\d+\r\n");
    }

    @Test
    @Timeout(10)
    void lolwutPrintsTheVersionLine() {
        assertReplies("LOLWUT\r\n", "$17\r\nRedis ver. 7.0.0\n\r\n");
        assertReplies("LOLWUT VERSION 5 10 1 1\r\nLOLWUT foo\r\n", "$17\r\nRedis ver. 7.0.0\n\r\n"
                + "$17\r\nRedis ver. 7.0.0\n\r\n");
        assertReplies("LOLWUT VERSION x\r\n", "-ERR value is not an integer or out of range\r\n");
    }

    @Test
    @Timeout(10)
    void commandCountListInfoDocs() {
        assertReplies("COMMAND COUNT\r\n", ":49\r\n");
        String list = run(bytes("COMMAND LIST\r\n"), true).replies;
        // every command, then each container's subcommands after it, by full name
        assertThat(list).startsWith("*112\r\n$4\r\nping\r\n$4\r\necho\r\n").contains("$6\r\nclient\r\n$9\r\nclient|id\r\n")
                .contains("$15\r\ncommand|getkeys\r\n").contains("$7\r\nmigrate\r\n").contains("$8\r\nsentinel\r\n");
        assertReplies("COMMAND LIST FILTERBY PATTERN cl*\r\n", "*17\r\n$6\r\nclient\r\n$9\r\nclient|id\r\n"
                + "$14\r\nclient|setname\r\n$14\r\nclient|getname\r\n$11\r\nclient|list\r\n$11\r\nclient|info\r\n"
                + "$11\r\nclient|kill\r\n$15\r\nclient|no-evict\r\n$12\r\nclient|reply\r\n$12\r\nclient|pause\r\n"
                + "$14\r\nclient|unpause\r\n$14\r\nclient|unblock\r\n$15\r\nclient|tracking\r\n$14\r\nclient|caching\r\n"
                + "$15\r\nclient|getredir\r\n$19\r\nclient|trackinginfo\r\n$11\r\nclient|help\r\n");
        assertReplies("COMMAND LIST FILTERBY ACLCAT nosuch\r\nCOMMAND LIST FILTERBY MODULE m\r\n", "*0\r\n*0\r\n");
        assertReplies("COMMAND LIST FILTERBY ACLCAT\r\nCOMMAND LIST FILTERBY COLOUR red\r\n",
                "-ERR syntax error\r\n-ERR syntax error\r\n");
        // Redis 7.0.15's own replies
        assertReplies("COMMAND INFO ping nosuch\r\n", "*2\r\n*10\r\n$4\r\nping\r\n:-1\r\n*1\r\n+fast\r\n:0\r\n:0\r\n:0\r\n"
                + "*2\r\n+@fast\r\n+@connection\r\n*2\r\n$25\r\nrequest_policy:all_shards\r\n"
                + "$29\r\nresponse_policy:all_succeeded\r\n*0\r\n*0\r\n$-1\r\n");
        assertReplies("COMMAND DOCS echo\r\n", "*2\r\n$4\r\necho\r\n*10\r\n$7\r\nsummary\r\n$21\r\nEcho the given string\r\n"
                + "$5\r\nsince\r\n$5\r\n1.0.0\r\n$5\r\ngroup\r\n$10\r\nconnection\r\n$10\r\ncomplexity\r\n$4\r\nO(1)\r\n"
                + "$9\r\narguments\r\n*1\r\n*4\r\n$4\r\nname\r\n$7\r\nmessage\r\n$4\r\ntype\r\n$6\r\nstring\r\n");
        assertReplies("COMMAND GETKEYS ping x\r\nCOMMAND GETKEYS nosuch k\r\nCOMMAND GETKEYS migrate h p k 0 1 x\r\n",
                "-ERR The command has no key arguments\r\n-ERR Invalid command specified\r\n*1\r\n$1\r\nk\r\n");
        assertReplies("COMMAND DOCS nosuch\r\n", "*0\r\n");
        assertThat(run(bytes("COMMAND\r\n"), true).replies).startsWith("*49\r\n*10\r\n$4\r\nping\r\n");
        assertThat(run(bytes("COMMAND INFO client|id\r\n"), true).replies)
                .startsWith("*1\r\n*10\r\n$9\r\nclient|id\r\n:2\r\n");
    }

    // ---- closing ------------------------------------------------------------------------------------------

    @Test
    @Timeout(10)
    void quitRepliesOkAndCloses() {
        Result result = assertReplies("QUIT\r\nPING\r\n", "+OK\r\n");
        assertThat(result.open).isFalse();
        assertThat(assertReplies("PING\r\nquit now\r\nPING\r\n", "+PONG\r\n+OK\r\n").open).isFalse();
    }

    @Test
    @Timeout(10)
    void protocolErrorAfterPipelinedPing() {
        Result result = assertReplies("*1\r\n$4\r\nPING\r\n*x\r\n*1\r\n$4\r\nPING\r\n",
                "+PONG\r\n-ERR Protocol error: invalid multibulk length\r\n");
        assertThat(result.open).isFalse();
    }

    @Test
    @Timeout(10)
    void protocolErrorsCarryRedisText() {
        assertThat(assertReplies("*1\r\n+foo\r\n", "-ERR Protocol error: expected '$', got '+'\r\n").open).isFalse();
        assertThat(assertReplies("PING \"a\r\n", "-ERR Protocol error: unbalanced quotes in request\r\n").open)
                .isFalse();
        assertThat(assertReplies("*1\r\n$-1\r\n", "-ERR Protocol error: invalid bulk length\r\n").open).isFalse();
        // a CR where '$' was expected must not break the framing of the reply
        assertThat(assertReplies("*1\r\n\r\n", "-ERR Protocol error: expected '$', got ' '\r\n").open).isFalse();
    }

    @Test
    @Timeout(10)
    void requestAboveMaxClosesWithoutReply() {
        StringBuilder request = new StringBuilder("PING\r\n*1000\r\n");
        for (int k = 0; k < 1000; k++) {
            request.append("$1\r\na\r\n");
        }
        for (boolean whole : new boolean[] {true, false}) {
            EmbeddedChannel channel = newChannel(1024);
            Result result = feed(channel, bytes(request.toString()), whole);
            assertThat(result.replies).as(whole ? "whole" : "byte by byte").isEqualTo("+PONG\r\n");
            assertThat(result.open).isFalse();
        }
    }

    @Test
    @Timeout(10)
    void sessionRecordsLastCommand() {
        run(bytes("PING\r\nCLIENT GETNAME\r\n"), true);
        assertThat(session.lastCommand()).isEqualTo("client|getname");
    }

    @Test
    @Timeout(10)
    void longScriptByteByByteEqualsWhole() {
        String script = "HELLO 2 SETNAME x\r\n*2\r\n$4\r\nECHO\r\n$3\r\nabc\r\nPING\nCLIENT GETNAME\r\nSELECT 16\r\n"
                + "CONFIG GET save\r\nfoo bar\r\nCOMMAND COUNT\r\n\r\n*0\r\nCLIENT ID\r\nQUIT\r\nPING\r\n";
        String expected = HELLO_2_REPLY + "$3\r\nabc\r\n+PONG\r\n$1\r\nx\r\n-ERR DB index is out of range\r\n"
                + "*2\r\n$4\r\nsave\r\n$0\r\n\r\n-ERR unknown command 'foo', with args beginning with: 'bar' \r\n"
                + ":49\r\n:7\r\n+OK\r\n";
        assertThat(assertReplies(script, expected).open).isFalse();
    }

    @Test
    @Timeout(10)
    void authAnswersAsRedis7WithAndWithoutRequirepass() {
        assertReplies("AUTH pw\r\nAUTH default anything\r\nAUTH alice pw\r\nAUTH a b c\r\n",
                "-ERR AUTH <password> called without any password configured for the default user. Are you sure "
                        + "your configuration is correct?\r\n+OK\r\n"
                        + "-WRONGPASS invalid username-password pair or user is disabled.\r\n-ERR syntax error\r\n");
        server.requirePass("s3cret");
        assertReplies("AUTH wrong\r\nAUTH s3cret\r\nAUTH default s3cret\r\n",
                "-WRONGPASS invalid username-password pair or user is disabled.\r\n+OK\r\n+OK\r\n");
        assertThat(session.authenticated()).isTrue();
        String hello = run(bytes("HELLO 2\r\nHELLO 2 AUTH default nope\r\nHELLO 2 AUTH default s3cret\r\n"),
                true).replies;
        assertThat(hello).startsWith("-NOAUTH HELLO must be called with the client already authenticated")
                .contains("\r\n-WRONGPASS invalid username-password pair or user is disabled.\r\n*14\r\n");
        server.requirePass(null);
    }

    @Test
    @Timeout(10)
    void replconfRecordsWhatAReplicaAnnouncesAndAcksGetNoReply() {
        Result r = assertReplies("REPLCONF listening-port 6380\r\nREPLCONF capa eof capa psync2\r\n"
                + "REPLCONF tandem-version 0.1.0\r\nREPLCONF listening-port x\r\nREPLCONF listening-port 0\r\n"
                + "REPLCONF ACK 5\r\nREPLCONF GETACK *\r\nREPLCONF odd\r\nREPLCONF ip-address 127.0.0.1\r\n"
                + "REPLCONF\r\n",
                "+OK\r\n+OK\r\n+OK\r\n-ERR value is not an integer or out of range\r\n-ERR invalid port number\r\n"
                        + "-ERR syntax error\r\n+OK\r\n+OK\r\n");
        assertThat(r.open).isTrue();
        assertThat(session.listeningPort()).isEqualTo(6380);
        assertThat(session.capabilities()).containsExactlyInAnyOrder("eof", "psync2");
        assertThat(session.replicaVersion()).isEqualTo("0.1.0");
    }

    @Test
    @Timeout(10)
    void psyncHandsTheConnectionToThePsyncServiceWhichGetsWhatTheReplicaSendsNext() {
        assertReplies("PSYNC ? -1\r\n", "-ERR PSYNC not supported - the psync protocol (bundle tandem.psync) is not "
                + "active\r\n");
        List<tandem.api.replication.PsyncRequest> requests = new ArrayList<>();
        List<String> received = new ArrayList<>();
        server.psync = (request, link) -> {
            requests.add(request);
            link.send(java.nio.ByteBuffer.wrap(bytes("+FULLRESYNC " + "a".repeat(40) + " 0\r\n")));
            return new tandem.api.replication.PsyncSession() {
                @Override
                public void command(byte[][] args) {
                    received.add(new String(args[0], StandardCharsets.ISO_8859_1) + " "
                            + new String(args[args.length - 1], StandardCharsets.ISO_8859_1));
                }

                @Override
                public void writable() {
                }

                @Override
                public void closed(String reason) {
                    received.add("closed");
                }
            };
        };
        Result r = assertReplies("REPLCONF listening-port 6380\r\nPSYNC ? -1\r\nREPLCONF ACK 10\r\nPING\r\n",
                "+OK\r\n+FULLRESYNC " + "a".repeat(40) + " 0\r\n");
        assertThat(r.open).isTrue();
        assertThat(session.replica()).as("a replica, not a client").isTrue();
        assertThat(requests).hasSize(2).allSatisfy(q -> {
            assertThat(q.replicationId()).isEqualTo("?");
            assertThat(q.offset()).isEqualTo(-1);
            assertThat(q.announcedAddress()).isEqualTo("127.0.0.1:6380");
        });
        assertThat(received).containsExactly("REPLCONF 10", "PING PING", "REPLCONF 10", "PING PING");
        assertReplies("PSYNC ? x\r\n", "-ERR value is not an integer or out of range\r\n");
        server.psync = null;
    }

    // ---- machinery ----------------------------------------------------------------------------------------

    private record Result(String replies, boolean open) {
    }

    /** Feeds the script whole and byte by byte on fresh connections; both must answer exactly {@code expected}. */
    private Result assertReplies(String script, String expected) {
        Result whole = run(bytes(script), true);
        assertThat(visible(whole.replies)).as("replies to %s fed whole", visible(script))
                .isEqualTo(visible(expected));
        Result bytewise = run(bytes(script), false);
        assertThat(visible(bytewise.replies)).as("replies to %s fed byte by byte", visible(script))
                .isEqualTo(visible(expected));
        assertThat(bytewise.open).as("open after %s", script).isEqualTo(whole.open);
        return whole;
    }

    private Result run(byte[] input, boolean whole) {
        return feed(newChannel(1 << 20), input, whole);
    }

    private Result feed(EmbeddedChannel channel, byte[] input, boolean whole) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        if (whole) {
            write(channel, input);
            collect(channel, out);
        } else {
            for (int k = 0; k < input.length && channel.isOpen(); k++) {
                write(channel, new byte[] {input[k]});
                collect(channel, out);
            }
        }
        return new Result(new String(out.toByteArray(), StandardCharsets.ISO_8859_1), channel.isOpen());
    }

    private static void write(EmbeddedChannel channel, byte[] bytes) {
        ByteBuf buf = channel.alloc().buffer(bytes.length);
        buf.writeBytes(bytes);
        channel.writeInbound(buf);
    }

    /** Moves what {@code channel} wrote into {@code out}, releasing it. */
    static void collect(EmbeddedChannel channel, ByteArrayOutputStream out) {
        for (Object msg = channel.readOutbound(); msg != null; msg = channel.readOutbound()) {
            ByteBuf buf = (ByteBuf) msg;
            try {
                byte[] b = new byte[buf.readableBytes()];
                buf.readBytes(b);
                out.writeBytes(b);
            } finally {
                buf.release();
            }
        }
    }

    private EmbeddedChannel newChannel(int maxRequestSize) {
        session = new ClientSession(CLIENT_ID, "127.0.0.1:5000");
        EmbeddedChannel channel = new EmbeddedChannel(new RespRequestDecoder(() -> maxRequestSize),
                new RespConnectionHandler(session, Commands.table(), server));
        channels.add(channel);
        return channel;
    }

    /** The bytes with CR, LF and everything outside printable ASCII escaped, for readable assertion messages. */
    private static String visible(String s) {
        StringBuilder sb = new StringBuilder();
        for (char c : s.toCharArray()) {
            if (c == '\r') {
                sb.append("\\r");
            } else if (c == '\n') {
                sb.append("\\n");
            } else if (c < 0x20 || c >= 0x7F || c == '\\') {
                sb.append(String.format("\\x%02x", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** A server with fixed answers. */
    private static final class FakeServer implements ServerContext {

        String requirePass;
        tandem.api.replication.PsyncService psync;

        @Override
        public String requirePass() {
            return requirePass;
        }

        final tandem.server.acl.Acl acl = new tandem.server.acl.Acl(tandem.server.acl.AclCatalog.get());

        void requirePass(String password) {
            requirePass = password;
            acl.requirePass(password);
        }

        @Override
        public tandem.server.acl.Acl acl() {
            return acl;
        }

        @Override
        public tandem.api.replication.PsyncService psyncService() {
            return psync;
        }

        @Override
        public tandem.api.replication.ReplicationControl replicationControl(String protocol) {
            return null;
        }

        @Override
        public String upstreamProtocol() {
            return null;
        }

        @Override
        public long offsetAfter(long sequence) {
            return sequence;
        }

        @Override
        public long backlogStart() {
            return 0;
        }

        @Override
        public String upstream() {
            return null;
        }

        @Override
        public tandem.api.replication.AckPolicy ackPolicy() {
            return tandem.api.replication.AckPolicy.DISK;
        }

        @Override
        public List<tandem.api.replication.ReplicationStatus> replicationStatuses() {
            return List.of();
        }

        /** The parameters the server owns, as a running server would report them. */
        final Map<String, String> owned = new HashMap<>(Map.ofEntries(Map.entry("port", "6379"),
                Map.entry("bind", "127.0.0.1"), Map.entry("io-threads", "2"), Map.entry("dir", "/tandem"),
                Map.entry("replicaof", ""), Map.entry("maxclients", "10000"),
                Map.entry("proto-max-bulk-len", "536870912"), Map.entry("requirepass", ""),
                Map.entry("min-replicas-to-write", "0"), Map.entry("min-replicas-max-lag", "5"),
                Map.entry("min-replicas-timeout-ms", "5000")));
        final RedisConfig config = new RedisConfig(new RedisConfig.Owner() {
            @Override
            public String value(String name) {
                return owned.get(name);
            }

            @Override
            public void apply(Map<String, String> changes) {
                owned.putAll(changes);
            }
        });
        int statResets;

        @Override
        public RedisConfig config() {
            return config;
        }

        @Override
        public void resetStats() {
            statResets++;
        }


        tandem.api.journal.JournalStatus journal;
        tandem.api.journal.ArchiveStatus archive;

        @Override
        public tandem.api.journal.JournalStatus journalStatus() {
            return journal;
        }

        @Override
        public tandem.api.journal.ArchiveStatus archiveStatus() {
            return archive;
        }

        @Override
        public String applyStopped() {
            return null;
        }

        int blockedClients;
        boolean loading;

        @Override
        public int blockedClients() {
            return blockedClients;
        }

        @Override
        public boolean loading() {
            return loading;
        }

        @Override
        public String notReady() {
            return loading ? "loading a snapshot" : null;
        }

        @Override
        public tandem.server.command.CommandMonitor monitor() {
            return monitor;
        }

        private final tandem.server.command.CommandMonitor monitor = new tandem.server.command.CommandMonitor();

        @Override
        public tandem.api.store.StoreStatus storeStatus() {
            return null;
        }


        final List<ClientInfo> clients = new ArrayList<>();

        @Override
        public String bindAddress() {
            return "127.0.0.1";
        }

        @Override
        public int port() {
            return 6379;
        }

        @Override
        public String transport() {
            return "nio";
        }

        @Override
        public int maxClients() {
            return 10000;
        }

        @Override
        public int connectedClients() {
            return 3;
        }

        @Override
        public long totalConnections() {
            return 42;
        }

        @Override
        public List<ClientInfo> clients() {
            return clients;
        }

        @Override
        public boolean kill(long id) {
            return false;
        }

        @Override
        public String version() {
            return "0.1.0-test";
        }

        @Override
        public String runId() {
            return "0123456789abcdef0123456789abcdef01234567";
        }

        @Override
        public long startedAtMillis() {
            return System.currentTimeMillis();
        }

        @Override
        public long processId() {
            return 4242;
        }

    }
}
