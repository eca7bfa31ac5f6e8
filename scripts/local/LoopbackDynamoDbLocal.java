import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

/**
 * AWS's DynamoDB Local, listening on 127.0.0.1 only (scripts/local/processes.ts runs this file with
 * `java`, which compiles it at start). The jar has no option for the address: its server listens on
 * every interface, so anyone on the same network could read or rewrite the local data. This builds
 * the server from the same command-line options as the jar's own main class (AWS's documented
 * `ServerRunner.createServerFromCommandLineArgs`), binds its one HTTP connector to the loopback
 * address, then starts it. The connector is reached through the server's private field: the jar is
 * pinned (package-lock.json), and a test checks the address after every start
 * (tests/integration/scripts/dynamodb-local.test.ts).
 */
public class LoopbackDynamoDbLocal {
  public static void main(String[] args) throws Exception {
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    Server server = (Server) field.get(proxy);
    Connector[] connectors = server.getConnectors();
    if (connectors.length == 0) throw new IllegalStateException("DynamoDB Local has no connector to bind");
    for (Connector connector : connectors) ((ServerConnector) connector).setHost("127.0.0.1");
    proxy.start();
  }
}
