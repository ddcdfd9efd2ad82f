package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.ledger.PostgresServer;
import dev.tokenmeter.proxy.RawHttp;
import dev.tokenmeter.testkit.CliProcess;
import dev.tokenmeter.testkit.SimFixture;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kill -9} of a real {@code tokenmeter proxy} process (a child JVM) while 32 clients stream
 * through it, on an SQLite ledger and on a PostgreSQL one. Proves the ledger's crash promise from
 * the client's side (docs/PROXY.md, "Writing"): every request whose answer a client had read to its
 * end more than the stated bound (500 ms) plus {@link #MARGIN_MILLIS} before the kill has exactly one
 * row, matched by the client's {@code x-request-id}; no request has two rows; every row kept is
 * whole (the status, tokens and finish the simulator served); an SQLite file passes {@code PRAGMA
 * integrity_check}. A writer that did not commit within the bound fails it: at least 100 requests
 * are that old at the kill.
 */
@Timeout(240)
class ProxyKillNineIT {
  private static final Pattern LISTENING = Pattern.compile("listening on (http://127\\.0\\.0\\.1:\\d+)");

  /** The ledger's stated bound from a record's hand-off to its commit (docs/PROXY.md, "Writing"). */
  private static final long BOUND_MILLIS = 500;

  /**
   * Added to the bound: the proxy hands a record to the ledger after its record path has replayed
   * the request (a few ms when idle), and the client stamps the end only after reading it; both
   * can be late on a 2-core machine shared with other builds.
   */
  private static final long MARGIN_MILLIS = 500;

  private static final int CLIENTS = 32;
  private static final int OUTPUT_TOKENS = 16;
  private static final String BODY = "{\"model\":\"tokenmeter-sim\","
      + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],"
      + "\"stream\":true,\"max_tokens\":" + OUTPUT_TOKENS + ",\"ignore_eos\":true}";

  @Test
  void sqliteKeepsEveryRequestOlderThanTheBound(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("ledger.db");
    String jdbc = "jdbc:sqlite:" + file;
    killUnderLoad(file.toString(), Map.of(), () -> DriverManager.getConnection(jdbc));
    try (Connection c = DriverManager.getConnection(jdbc);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("PRAGMA integrity_check")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString(1)).isEqualTo("ok");
    }
  }

  @Test
  void postgresKeepsEveryRequestOlderThanTheBound() throws Exception {
    try (PostgresServer pg = PostgresServer.start()) {
      killUnderLoad(pg.url() + "?user=" + PostgresServer.USER, Map.of("PGPASSWORD", PostgresServer.PASSWORD),
          () -> DriverManager.getConnection(pg.url(), PostgresServer.USER, PostgresServer.PASSWORD));
    }
  }

  private interface Database {
    Connection connect() throws Exception;
  }

  /** Starts the proxy on {@code ledger}, loads it, kills it, and checks its rows against the clients. */
  private static void killUnderLoad(String ledger, Map<String, String> env, Database db) throws Exception {
    Load load = null;
    long killNanos;
    long signalMillis;
    try (SimFixture sim = SimFixture.start(SimFixture.config(20, 5));
        CliProcess proxy = CliProcess.start(env, "proxy", "--listen", "127.0.0.1:0", "--upstream", sim.baseUrl(),
            "--ledger", ledger)) {
      assertThat(proxy.awaitErrLine(l -> LISTENING.matcher(l).find(), Duration.ofSeconds(60)))
          .as("the proxy listens; stderr: %s", proxy.err()).isTrue();
      Matcher m = LISTENING.matcher(proxy.err());
      assertThat(m.find()).isTrue();
      load = new Load(m.group(1));
      long startNanos = System.nanoTime();
      // ~95 ms a request (20 ms + 15 x 5 ms): 3 s of 32 clients is several hundred requests
      while (System.nanoTime() - startNanos < TimeUnit.SECONDS.toNanos(3) || load.ended.size() < 300) {
        assertThat(System.nanoTime() - startNanos).as("300 requests within 90 s; stderr: %s", proxy.err())
            .isLessThan(TimeUnit.SECONDS.toNanos(90));
        Thread.sleep(50);
      }
      killNanos = System.nanoTime(); // before the signal: each request judged old is at least that old
      proxy.kill();
      signalMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killNanos);
      assertThat(proxy.waitFor(Duration.ofSeconds(30))).as("SIGKILL").isEqualTo(128 + 9);
      load.awaitFailures();
    } finally {
      if (load != null) {
        load.stop();
      }
    }
    long killedAtNanos = killNanos;
    assertThat(load.failedAtNanos.values()).as("no request failed before the kill")
        .allMatch(t -> t >= killedAtNanos);
    Set<String> rows = checkRows(db, load.sent);
    long cutoffNanos = killNanos - TimeUnit.MILLISECONDS.toNanos(BOUND_MILLIS + MARGIN_MILLIS);
    long old = 0;
    long oldestLostMillis = -1;
    for (Map.Entry<String, Long> e : load.ended.entrySet()) {
      long ageMillis = TimeUnit.NANOSECONDS.toMillis(killNanos - e.getValue());
      if (!rows.contains(e.getKey())) {
        oldestLostMillis = Math.max(oldestLostMillis, ageMillis);
      }
      if (e.getValue() < cutoffNanos) {
        old++;
        assertThat(rows).as("request %s, read to its end %d ms before the kill", e.getKey(), ageMillis)
            .contains(e.getKey());
      }
    }
    System.out.printf("ProxyKillNineIT %s: %d requests read to the end, %d clients stopped by the kill"
            + " (SIGKILL sent within %d ms), %d rows; %d older than %d ms, all kept; the oldest without a row"
            + " was read %d ms before the kill%n",
        ledger.startsWith("jdbc:") ? "postgres" : "sqlite", load.ended.size(), load.failedAtNanos.size(),
        signalMillis, rows.size(), old, BOUND_MILLIS + MARGIN_MILLIS, oldestLostMillis);
    assertThat(old).as("requests older than the bound at the kill").isGreaterThanOrEqualTo(100);
    assertThat(load.failedAtNanos).as("requests in flight when the proxy died").isNotEmpty();
  }

  /**
   * Reads every row; fails on a duplicate id, an id no client sent, or a row that is not the whole
   * record of a completed stream. Returns the request ids of the rows.
   */
  private static Set<String> checkRows(Database db, Set<String> sent) throws Exception {
    Set<String> ids = new HashSet<>();
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT request_id, tenant, model, upstream, endpoint, streamed, http_status,"
            + " error_class, finish_reason, input_tokens, output_tokens, output_tokens_source, chunks, ttft_ms,"
            + " e2e_ms FROM requests")) {
      while (rs.next()) {
        String id = rs.getString("request_id");
        assertThat(ids.add(id)).as("one row for %s", id).isTrue();
        assertThat(sent).as("a row for a request a client sent").contains(id);
        assertThat(List.of(rs.getString("tenant"), rs.getString("model"), rs.getString("upstream"),
                rs.getString("endpoint"), rs.getString("finish_reason"), rs.getString("output_tokens_source")))
            .as("row %s", id)
            .containsExactly("anonymous", "tokenmeter-sim", "default", "/v1/chat/completions", "length", "usage");
        assertThat(rs.getBoolean("streamed")).as("row %s streamed", id).isTrue();
        assertThat(rs.getInt("http_status")).as("row %s status", id).isEqualTo(200);
        assertThat(rs.getString("error_class")).as("row %s error class", id).isNull();
        assertThat(rs.getInt("input_tokens")).as("row %s input tokens", id).isPositive();
        assertThat(rs.getInt("output_tokens")).as("row %s output tokens", id).isEqualTo(OUTPUT_TOKENS);
        assertThat(rs.getInt("chunks")).as("row %s chunks", id).isEqualTo(OUTPUT_TOKENS);
        assertThat(rs.getDouble("ttft_ms")).as("row %s TTFT", id).isPositive();
        assertThat(rs.getDouble("e2e_ms")).as("row %s E2E", id).isGreaterThanOrEqualTo(rs.getDouble("ttft_ms"));
      }
    }
    return ids;
  }

  /**
   * {@link #CLIENTS} threads, each sending one streaming request after another with its own {@code
   * x-request-id}, and stamping when it read a whole answer ({@code [DONE]} and the last chunk).
   */
  private static final class Load {
    final Set<String> sent = ConcurrentHashMap.newKeySet();
    final Map<String, Long> ended = new ConcurrentHashMap<>();
    final Map<String, Long> failedAtNanos = new ConcurrentHashMap<>();
    private final AtomicBoolean stopping = new AtomicBoolean();
    private final List<Thread> threads = new ArrayList<>();

    Load(String baseUrl) {
      for (int i = 0; i < CLIENTS; i++) {
        int client = i;
        Thread t = new Thread(() -> run(baseUrl, client), "kill-load-" + i);
        t.setDaemon(true);
        threads.add(t);
        t.start();
      }
    }

    private void run(String baseUrl, int client) {
      for (int seq = 0; !stopping.get(); seq++) {
        String id = "kill-" + client + "-" + seq;
        sent.add(id);
        RawHttp.Response r = null;
        try {
          r = RawHttp.post(baseUrl, "/v1/chat/completions", BODY, "x-request-id: " + id);
        } catch (RuntimeException e) {
          // the proxy died under it (reset), or before it (refused): this client is done
        }
        long endNanos = System.nanoTime();
        if (r != null && r.status() == 200 && r.complete() && r.text().contains("data: [DONE]")) {
          ended.put(id, endNanos);
        } else {
          failedAtNanos.put(id, endNanos);
          return;
        }
      }
    }

    /** Waits for every client to meet the dead proxy. */
    void awaitFailures() throws InterruptedException {
      for (Thread t : threads) {
        t.join(30_000);
        assertThat(t.isAlive()).as("%s still reads from a killed proxy", t.getName()).isFalse();
      }
    }

    void stop() throws InterruptedException {
      stopping.set(true);
      for (Thread t : threads) {
        t.join(30_000);
      }
    }
  }
}
