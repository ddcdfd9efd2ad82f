package dev.tokenmeter.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tokenmeter.proxy.dashboard.BoardView;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The proxy's log lines: one per ledger outage start and end, refusals at most once a minute. */
class ProxyWatchTest {
  private final AtomicLong now = new AtomicLong(1_000_000_000_000L);
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final PrintStream log = new PrintStream(out, true, StandardCharsets.UTF_8);

  private List<String> lines() {
    String s = out.toString(StandardCharsets.UTF_8);
    return s.isEmpty() ? List.of() : List.of(s.split("\n"));
  }

  @Test
  void aLedgerOutageIsOneLineWhenItStartsAndOneWhenItEnds() {
    AtomicReference<ProxyWatch.LedgerCounts> ledger = new AtomicReference<>(new ProxyWatch.LedgerCounts(10, 0, 0, null));
    ProxyWatch w = new ProxyWatch(ledger::get, Map::of, log, now::get);
    w.check();
    assertThat(lines()).isEmpty();
    ledger.set(new ProxyWatch.LedgerCounts(10, 1, 0, "database is locked"));
    w.check();
    assertThat(lines()).singleElement().asString().contains("the ledger cannot commit (database is locked)");
    for (int i = 2; i < 6; i++) { // failing on: no more lines
      now.addAndGet(2_000_000_000L);
      ledger.set(new ProxyWatch.LedgerCounts(10, i, 40L * i, "database is locked"));
      w.check();
    }
    assertThat(lines()).hasSize(1);
    now.addAndGet(2_000_000_000L);
    ledger.set(new ProxyWatch.LedgerCounts(5_000, 5, 200, null));
    w.check();
    assertThat(lines()).hasSize(2);
    assertThat(lines().get(1)).contains("commits again after about 10 s", "200 records dropped during the outage");
    w.check();
    assertThat(lines()).hasSize(2);
  }

  @Test
  void theDashboardSeesTheOutageFromTheCheckThatFoundItToTheOneThatSawACommit() {
    AtomicReference<ProxyWatch.LedgerCounts> ledger = new AtomicReference<>(new ProxyWatch.LedgerCounts(10, 0, 7, null));
    ProxyWatch w = new ProxyWatch(ledger::get, Map::of, log, now::get);
    w.check();
    assertThat(w.ledgerHealth()).isEqualTo(new BoardView.Ledger("ok", null, 0, 7, 0, null));
    ledger.set(new ProxyWatch.LedgerCounts(10, 1, 7, "database is locked"));
    w.check();
    now.addAndGet(4_000_000_000L);
    ledger.set(new ProxyWatch.LedgerCounts(10, 3, 127, "database is locked"));
    w.check();
    now.addAndGet(1_000_000_000L); // read between checks: the time runs on, the counts are the last check's
    assertThat(w.ledgerHealth()).isEqualTo(new BoardView.Ledger("failing", 5L, 3, 127, 120, "database is locked"));
    ledger.set(new ProxyWatch.LedgerCounts(900, 3, 127, null));
    w.check();
    assertThat(w.ledgerHealth()).isEqualTo(new BoardView.Ledger("ok", null, 3, 127, 0, null));
    assertThat(new ProxyWatch(null, Map::of, log, now::get).ledgerHealth()).isEqualTo(BoardView.Ledger.NONE);
  }

  @Test
  void refusalsAreSaidAtOnceThenAtMostOnceAMinute() {
    Map<String, Long> refusals = new TreeMap<>();
    ProxyWatch w = new ProxyWatch(null, () -> Map.copyOf(refusals), log, now::get);
    w.check();
    assertThat(lines()).as("nothing refused").isEmpty();
    refusals.put("budget", 1_200L);
    refusals.put("auth", 34L);
    w.check();
    assertThat(lines()).singleElement().asString()
        .contains("refused 1,234 requests since the proxy started (auth 34, budget 1,200)", "upstream '-'");
    refusals.put("budget", 1_500L);
    now.addAndGet(30_000_000_000L);
    w.check();
    assertThat(lines()).as("within the minute").hasSize(1);
    now.addAndGet(30_000_000_000L);
    w.check();
    assertThat(lines()).hasSize(2);
    assertThat(lines().get(1)).contains("refused 300 requests since the last such line (budget 300)");
  }
}
