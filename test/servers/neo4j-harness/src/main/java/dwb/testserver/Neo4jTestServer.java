package dwb.testserver;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.harness.Neo4j;
import org.neo4j.harness.Neo4jBuilders;

/**
 * A throwaway Neo4j Community server for the connector tests: the real database engine,
 * in-process through neo4j-harness, with Bolt on a loopback port and its files in the
 * directory given as the first argument.
 *
 * Usage: Neo4jTestServer DATA_DIR PORT
 *
 * Prints exactly one line "NEO4J_READY bolt://127.0.0.1:PORT" on stdout once Bolt accepts
 * connections, and stops when stdin closes (the test process died or let go of us: the JVM
 * halts at once) or on SIGTERM (graceful shutdown), so no server outlives its test run.
 */
public final class Neo4jTestServer {
    private Neo4jTestServer() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: Neo4jTestServer DATA_DIR PORT");
            System.exit(2);
        }
        Path dataDir = Path.of(args[0]);
        int port = Integer.parseInt(args[1]);

        Neo4j neo4j = Neo4jBuilders.newInProcessBuilder(dataDir)
                // Only Bolt is needed; the HTTP server would cost start-up time and a port.
                .withDisabledServer()
                .withConfig(BoltConnector.enabled, true)
                .withConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
                .withConfig(BoltConnector.advertised_address, new SocketAddress("127.0.0.1", port))
                // Auth off keeps the throwaway server simple; the connector still sends credentials.
                .withConfig(GraphDatabaseSettings.auth_enabled, false)
                // Small caches: the fixtures are tiny and the CI machine has two cores.
                .withConfig(GraphDatabaseSettings.pagecache_memory, 64L * 1024 * 1024)
                .build();

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> closeQuietly(neo4j, stopped)));

        System.out.println("NEO4J_READY " + neo4j.boltURI());
        System.out.flush();

        waitForStdinToClose(System.in);
        // The store is thrown away with its temp directory, so there is nothing to flush:
        // halting skips the ~10 s graceful shutdown. SIGTERM still shuts down cleanly.
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
            // A broken pipe means the parent is gone: shut down as for end-of-stream.
        }
    }

    private static synchronized void closeQuietly(Neo4j neo4j, CountDownLatch stopped) {
        if (stopped.getCount() == 0) return;
        try {
            neo4j.close();
        } catch (RuntimeException error) {
            System.err.println("Neo4j shutdown failed: " + error);
        } finally {
            stopped.countDown();
        }
    }
}
