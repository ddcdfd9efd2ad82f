package dev.tokenmeter.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tokenmeter.ledger.Ledger;
import dev.tokenmeter.ledger.LedgerException;
import dev.tokenmeter.ledger.LedgerFixtures;
import dev.tokenmeter.ledger.LedgerWriter;
import dev.tokenmeter.ledger.Ledgers;
import dev.tokenmeter.ledger.MeteredRequest;
import dev.tokenmeter.ledger.PostgresServer;
import dev.tokenmeter.ledger.UsageQuery;
import dev.tokenmeter.ledger.UsageReport;
import dev.tokenmeter.ledger.UsageRow;
import dev.tokenmeter.testkit.MeteredRequestBuilder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * A fleet on PostgreSQL: two proxies (two ledgers opened at once, so their migrations race, and two
 * writers) write into one ledger on a real server; every row reads back intact and usage adds up.
 */
class PostgresLedgerIT {
  private static final int PER_PROXY = 3_000;
  private static final long T0 = Instant.parse("2026-11-25T08:00:00Z").toEpochMilli();

  @Test
  void twoProxiesShareOneLedger() throws Exception {
    try (PostgresServer pg = PostgresServer.start()) {
      String url = pg.url() + "?user=" + PostgresServer.USER;
      Map<String, String> env = Map.of("PGPASSWORD", PostgresServer.PASSWORD);
      ExecutorService pool = Executors.newFixedThreadPool(2);
      List<Future<List<MeteredRequest>>> proxies = new ArrayList<>();
      try {
        for (int p = 0; p < 2; p++) {
          long offset = p * 1_000_000L;
          proxies.add(pool.submit(proxy(url, env, offset)));
        }
        List<MeteredRequest> sent = new ArrayList<>();
        for (Future<List<MeteredRequest>> f : proxies) {
          sent.addAll(f.get());
        }
        Ledger ledger = Ledgers.openExisting(url, env);
        List<MeteredRequest> back = LedgerFixtures.readAll(ledger);
        assertThat(back).hasSize(2 * PER_PROXY);
        Map<String, MeteredRequest> byId = new java.util.HashMap<>();
        back.forEach(r -> byId.put(r.requestId(), r));
        for (MeteredRequest r : sent) {
          assertThat(LedgerFixtures.same(r, byId.get(r.requestId()))).as("%s intact", r.requestId()).isTrue();
        }
        assertThat(appliedMigrations(ledger)).as("migrated once, though both proxies opened it").isEqualTo(4);

        UsageReport usage = ledger.usage(new UsageQuery(Instant.ofEpochMilli(T0), null, UsageQuery.GroupBy.TENANT));
        assertThat(usage.total().requests()).isEqualTo(2 * PER_PROXY);
        assertThat(usage.rows()).extracting(UsageRow::key).containsExactly("tenant-0", "tenant-1", "tenant-2");
        long sumOut = sent.stream().mapToLong(r -> Math.max(0, r.outputTokens())).sum();
        assertThat(usage.total().outputTokens()).isEqualTo(sumOut);
      } finally {
        pool.shutdownNow();
      }

      assertThatThrownBy(() -> Ledgers.openExisting(url, Map.of("PGPASSWORD", "wrong-password")))
          .isInstanceOf(LedgerException.class)
          .hasMessageStartingWith("cannot reach the ledger at " + url)
          .hasMessageContaining("password authentication failed")
          .hasMessageNotContaining("wrong-password");
      assertThatThrownBy(() -> Ledgers.openExisting(pg.url() + "?user=" + PostgresServer.USER + "&password="
              + PostgresServer.PASSWORD + "&currentSchema=nothing_here", Map.of()))
          .isInstanceOf(LedgerException.class)
          .hasMessageContaining("is not a tokenmeter ledger")
          .hasMessageNotContaining(PostgresServer.PASSWORD);
    }
  }

  private static Callable<List<MeteredRequest>> proxy(String url, Map<String, String> env, long seqOffset) {
    return () -> {
      Ledger ledger = Ledgers.open(url, env);
      List<MeteredRequest> sent = new ArrayList<>();
      try (LedgerWriter w = ledger.writer()) {
        for (int i = 0; i < PER_PROXY; i++) {
          MeteredRequest r = LedgerFixtures.sample(seqOffset + i, T0 + i);
          if (i == 6) {
            // PostgreSQL refuses NUL in text; an upstream's error message may carry one
            r = withError(r, "bad\0byte");
            sent.add(withError(r, "badbyte"));
            w.accept(r);
            continue;
          }
          sent.add(r);
          w.accept(r);
        }
      }
      return sent;
    };
  }

  private static MeteredRequest withError(MeteredRequest r, String error) {
    return MeteredRequestBuilder.from(r).failed(dev.tokenmeter.core.request.ErrorClass.PROTOCOL, r.httpStatus())
        .error(error).build();
  }

  private static int appliedMigrations(Ledger ledger) throws Exception {
    return Integer.parseInt(LedgerFixtures.firstValue(ledger, "SELECT count(*) FROM flyway_schema_history WHERE success"));
  }
}
