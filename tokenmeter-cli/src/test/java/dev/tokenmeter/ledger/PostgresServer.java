package dev.tokenmeter.ledger;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * A real PostgreSQL server for one test, from the Debian package ({@code postgresql}, binaries under
 * /usr/lib/postgresql/VERSION/bin): a fresh cluster in a temporary folder, listening on 127.0.0.1 on
 * a free port, its unix socket in the same folder, password authentication over TCP. Run as the
 * {@code postgres} user when the test runs as root (PostgreSQL refuses to run as root). {@link
 * #close()} stops it and deletes the folder.
 *
 * <p>Without PostgreSQL installed, {@link #start()} skips the test, or fails it when {@code
 * TOKENMETER_REQUIRE_POSTGRES=1} (as in CI, after scripts/ensure-postgres.sh).
 */
public final class PostgresServer implements AutoCloseable {
  public static final String USER = "tokenmeter";
  public static final String PASSWORD = "ledger-test-password";
  private static final long COMMAND_SECONDS = 120;

  private final Path bin;
  private final Path dir;
  private final List<String> asPostgres;
  private final int port;

  private PostgresServer(Path bin, Path dir, List<String> asPostgres, int port) {
    this.bin = bin;
    this.dir = dir;
    this.asPostgres = asPostgres;
    this.port = port;
  }

  /** Initialises and starts a cluster; skips (or fails, when required) without PostgreSQL. */
  public static PostgresServer start() throws Exception {
    Optional<Path> bin = binaries();
    if (bin.isEmpty()) {
      String why = "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb): run scripts/ensure-postgres.sh";
      if ("1".equals(System.getenv("TOKENMETER_REQUIRE_POSTGRES"))) {
        Assertions.fail(why + " (TOKENMETER_REQUIRE_POSTGRES=1)");
      }
      Assumptions.abort(why);
    }
    Path dir = Files.createTempDirectory("tokenmeter-pg-");
    List<String> asPostgres = new ArrayList<>();
    if ("root".equals(System.getProperty("user.name"))) {
      UserPrincipal postgres = dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("postgres");
      Files.setOwner(dir, postgres);
      asPostgres.addAll(List.of("runuser", "-u", "postgres", "--"));
    }
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
    PostgresServer pg = new PostgresServer(bin.get(), dir, asPostgres, freePort());
    try {
      pg.init();
      pg.run("pg_ctl", "-D", pg.data(), "-l", dir.resolve("server.log").toString(), "-w", "-t", "60", "-o",
          "-c listen_addresses=127.0.0.1 -p " + pg.port + " -k " + dir, "start");
    } catch (Exception | AssertionError e) {
      pg.delete();
      throw e;
    }
    return pg;
  }

  private void init() throws IOException {
    // the password file is written by the postgres user itself, so it may read it
    run("sh", "-c", "umask 077 && printf '%s' '" + PASSWORD + "' > " + dir.resolve("pw"));
    run("initdb", "-D", data(), "-U", USER, "--pwfile=" + dir.resolve("pw"), "--auth-local=trust",
        "--auth-host=scram-sha-256", "--no-sync", "-E", "UTF8", "--locale=C");
  }

  /** {@code jdbc:postgresql://127.0.0.1:PORT/postgres}, with no user or password in it. */
  public String url() {
    return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
  }

  private String data() {
    return dir.resolve("data").toString();
  }

  private void run(String program, String... args) throws IOException {
    List<String> cmd = new ArrayList<>(asPostgres);
    cmd.add(program.equals("sh") ? program : bin.resolve(program).toString());
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
    boolean done;
    try {
      done = p.waitFor(COMMAND_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      done = false;
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!done || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new IllegalStateException(String.join(" ", cmd) + " failed:\n" + out + log());
    }
  }

  private String log() {
    try {
      Path log = dir.resolve("server.log");
      return Files.exists(log) ? "\n--- server.log ---\n" + Files.readString(log) : "";
    } catch (IOException e) {
      return "";
    }
  }

  /** Stops the server and deletes its folder. */
  @Override
  public void close() throws IOException {
    try {
      run("pg_ctl", "-D", data(), "-m", "fast", "-w", "stop");
    } finally {
      delete();
    }
  }

  private void delete() throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(f);
      }
    }
  }

  private static Optional<Path> binaries() throws IOException {
    Path root = Path.of("/usr/lib/postgresql");
    if (!Files.isDirectory(root)) {
      return Optional.empty();
    }
    try (Stream<Path> versions = Files.list(root)) {
      return versions
          .map(v -> v.resolve("bin"))
          .filter(b -> Files.isExecutable(b.resolve("initdb")) && Files.isExecutable(b.resolve("pg_ctl")))
          .max(Comparator.comparingInt(PostgresServer::major));
    }
  }

  private static int major(Path bin) {
    try {
      return Integer.parseInt(bin.getParent().getFileName().toString());
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
