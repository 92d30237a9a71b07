package dwb.testserver;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

import io.trino.plugin.memory.MemoryPlugin;
import io.trino.server.testing.FactoryConfiguration;
import io.trino.server.testing.TestingTrinoServer;

/**
 * A throwaway Trino coordinator for the connector tests: the real engine, in-process through
 * trino-testing's TestingTrinoServer, with HTTP on a loopback port, two memory catalogs
 * ("memory" and "lake", so the schema browser has more than one catalog to list) and Trino's
 * file-based system access control: "dwb_admin" may do anything (fixtures are loaded as it),
 * every other user, "dwb_reader" included, may only read. Trino itself refuses their writes.
 *
 * Usage: TrinoTestServer DATA_DIR PORT
 *
 * Prints exactly one line "TRINO_READY http://127.0.0.1:PORT" on stdout once the coordinator
 * accepts queries, and halts when stdin closes (the test process died or let go of us), so no
 * server outlives its test run. The memory catalogs hold nothing worth a graceful shutdown.
 */
public final class TrinoTestServer {
    private TrinoTestServer() {}

    /** Admin: everything; anyone else: read-only on every catalog, and only their own queries. */
    private static final String ACCESS_RULES = """
            {
              "catalogs": [
                {"user": "dwb_admin", "catalog": ".*", "allow": "all"},
                {"catalog": ".*", "allow": "read-only"}
              ],
              "schemas": [
                {"user": "dwb_admin", "schema": ".*", "owner": true},
                {"schema": ".*", "owner": false}
              ],
              "tables": [
                {"user": "dwb_admin", "privileges": ["SELECT", "INSERT", "DELETE", "UPDATE", "OWNERSHIP", "GRANT_SELECT"]},
                {"privileges": ["SELECT"]}
              ]
            }
            """;

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: TrinoTestServer DATA_DIR PORT");
            System.exit(2);
        }
        // Airlift's logging takes over System.out while the server boots; the ready line must
        // reach the test on the real stdout, alone on its line.
        PrintStream stdout = System.out;
        Path dataDir = Path.of(args[0]);
        int port = Integer.parseInt(args[1]);
        Path rules = dataDir.resolve("access-rules.json");
        Files.writeString(rules, ACCESS_RULES, StandardCharsets.UTF_8);

        TestingTrinoServer server = TestingTrinoServer.builder()
                .setProperties(Map.of(
                        "http-server.http.port", String.valueOf(port),
                        // TestingTrinoServer already sizes its task pools small (4 threads).
                        "query.max-memory", "256MB"))
                .setBaseDataDir(Optional.of(dataDir.resolve("server")))
                .setSystemAccessControls(Optional.empty())
                .setSystemAccessControlConfiguration(Optional.of(
                        new FactoryConfiguration("file", Map.of("security.config-file", rules.toString()))))
                .build();
        server.installPlugin(new MemoryPlugin());
        server.createCatalog("memory", "memory", Map.of());
        server.createCatalog("lake", "memory", Map.of());

        stdout.println("TRINO_READY http://127.0.0.1:" + server.getAddress().getPort());
        stdout.flush();

        waitForStdinToClose(System.in);
        Runtime.getRuntime().halt(0);
    }

    /** Blocks until the parent closes our stdin (or dies, which closes it too). */
    private static void waitForStdinToClose(InputStream in) {
        byte[] buffer = new byte[256];
        try {
            while (in.read(buffer) >= 0) {
                // Input is ignored; only end-of-stream matters.
            }
        } catch (IOException ignored) {
            // A broken pipe means the parent is gone: stop as for end-of-stream.
        }
    }
}
