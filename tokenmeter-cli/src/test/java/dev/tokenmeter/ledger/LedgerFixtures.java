package dev.tokenmeter.ledger;

import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.core.request.TokenCountSource;
import dev.tokenmeter.testkit.MeteredRequestBuilder;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/** Records for ledger tests, and a way to read every row back. */
public final class LedgerFixtures {
  private LedgerFixtures() {}

  /**
   * The {@code i}-th record of a deterministic stream: every field set, varied with {@code i},
   * unknown values ({@code -1}, NaN, null) in every fifth, a failure in every seventh.
   */
  public static MeteredRequest sample(long i, long startedAtEpochMillis) {
    boolean unknowns = i % 5 == 4;
    ErrorClass error = i % 7 == 6 ? ErrorClass.values()[(int) (i % ErrorClass.values().length)] : null;
    int out = unknowns ? -1 : (int) (i % 500) + 2;
    return MeteredRequestBuilder.chat("tenant-" + (i % 3), unknowns ? null : "model-" + (i % 2), "up-" + (i % 2))
        .id("req-" + i)
        .startedAt(startedAtEpochMillis)
        .streamed(i % 2 == 0)
        .failed(error, unknowns ? -1 : 200)
        .error(error == null ? null : "failure " + i + ", \"quoted\"\nsecond line")
        .finishReason(error == null ? "stop" : null)
        .tokens(unknowns ? -1 : (int) (i % 1000) + 1, out, unknowns ? -1 : (int) (i % 11), unknowns ? -1 : (int) (i % 13))
        .source(unknowns ? null : TokenCountSource.values()[(int) (i % 3)])
        .times(123_456L + i, unknowns ? -1 : 1_000_000L + 7 * i, unknowns ? Double.NaN : 12_345_678.25 + i,
            unknowns ? -1 : 987_654_321L + i)
        .itl(unknowns ? -1 : 10_001L + i, unknowns ? -1 : 20_003L + i, unknowns ? -1 : 30_007L + i)
        .chunks((int) (i % 97))
        .inFlightAtStart((int) (i % 64))
        .cost(unknowns ? Double.NaN : 0.000_125 * (i % 40), unknowns ? null : "USD")
        .conversation(unknowns || i % 4 == 1 ? null : "conv-" + (i % 50) + " \"é\"")
        .promptBlocks(unknowns || i % 3 == 2 ? null : new PromptBlocks(new long[] {i, 0xfedcba987654L, i % 3}, 1000 + (int) i, 256))
        .build();
  }

  /** A request with the figures that usage adds up; the others plain. */
  static MeteredRequest usage(
      String tenant, long startedAtEpochMillis, ErrorClass errorOrNull, int in, int out, long ttftNanos, double tpotNanos, double cost) {
    return MeteredRequestBuilder.chat(tenant, "m-" + tenant, "up")
        .id("u-" + tenant + "-" + startedAtEpochMillis + "-" + ttftNanos)
        .startedAt(startedAtEpochMillis)
        .failed(errorOrNull, errorOrNull == null ? 200 : 500)
        .error(errorOrNull == null ? null : "boom")
        .tokens(in, out, 3, 2)
        .source(TokenCountSource.USAGE)
        .times(1_000, ttftNanos, tpotNanos, ttftNanos + 1_000_000_000L)
        .chunks(out)
        .cost(cost, Double.isNaN(cost) ? null : "USD")
        .build();
  }

  /** Every row of the ledger, in insertion order. */
  public static List<MeteredRequest> readAll(Ledger ledger) throws SQLException {
    List<MeteredRequest> all = new ArrayList<>();
    try (Connection c = ledger.connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(RequestsTable.SELECT_ALL + " ORDER BY started_at_epoch_ms, request_id")) {
      while (rs.next()) {
        all.add(RequestsTable.read(rs));
      }
    }
    return all;
  }

  /** The first column of the first row {@code sql} returns, as text: a check's answer or a count. */
  public static String firstValue(Ledger ledger, String sql) throws SQLException {
    try (Connection c = ledger.connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }

  /** {@code a} equals {@code b} field by field, TPOT to within a rounding of ns / 1e6 * 1e6. */
  public static boolean same(MeteredRequest a, MeteredRequest b) {
    double ta = a.tpotNanos();
    double tb = b.tpotNanos();
    boolean tpot = Double.isNaN(ta) ? Double.isNaN(tb) : Math.abs(ta - tb) < 1e-6;
    String cutError = a.error() == null || a.error().length() <= RequestsTable.MAX_ERROR_CHARS
        ? a.error() : a.error().substring(0, RequestsTable.MAX_ERROR_CHARS);
    return tpot && withTpot(a, 0, cutError).equals(withTpot(b, 0, b.error()));
  }

  private static MeteredRequest withTpot(MeteredRequest r, double tpot, String error) {
    return MeteredRequestBuilder.from(r).error(error)
        .times(r.proxyQueueNanos(), r.ttftNanos(), tpot, r.e2eNanos()).build();
  }
}
