package dev.tokenmeter.ledger;

import dev.tokenmeter.core.request.ErrorClass;
import dev.tokenmeter.core.request.TokenCountSource;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.List;

/**
 * The {@code requests} table (migrations V1, V2, V3: {@code conversation}, V4: {@code prompt_blocks}, {@code prompt_chars}): its columns in order, and the mapping between a
 * {@link MeteredRequest} and a row, plus {@code proxy_id}, the writing proxy's id (V2). Times are stored in milliseconds ({@code nanos / 1e6}, not
 * rounded, so the nanoseconds read back exactly); unknown values ({@code -1}, NaN, null) as NULL.
 */
final class RequestsTable {
  /** Longest {@code error} text kept; a longer one is cut (the table takes any length). */
  static final int MAX_ERROR_CHARS = 2000;

  static final List<String> COLUMNS =
      List.of(
          "request_id",
          "started_at_epoch_ms",
          "tenant",
          "model",
          "upstream",
          "endpoint",
          "streamed",
          "http_status",
          "error_class",
          "error",
          "finish_reason",
          "input_tokens",
          "output_tokens",
          "output_tokens_source",
          "reasoning_tokens",
          "cached_tokens",
          "proxy_queue_ms",
          "ttft_ms",
          "tpot_ms",
          "decode_tps",
          "e2e_ms",
          "itl_p50_ms",
          "itl_p99_ms",
          "itl_max_ms",
          "chunks",
          "in_flight_at_start",
          "cost",
          "currency",
          "conversation",
          "prompt_blocks",
          "prompt_chars");

  /** {@link #COLUMNS}, then {@code proxy_id}. */
  static final String INSERT =
      "INSERT INTO requests ("
          + String.join(", ", COLUMNS)
          + ", proxy_id) VALUES ("
          + String.join(", ", COLUMNS.stream().map(c -> "?").toList())
          + ", ?)";

  static final String SELECT_ALL = "SELECT " + String.join(", ", COLUMNS) + " FROM requests";

  private RequestsTable() {}

  /** Sets the parameters of {@link #INSERT} to {@code r}, written by proxy {@code proxyId} (null: unnamed). */
  static void bind(PreparedStatement ps, MeteredRequest r, String proxyId) throws SQLException {
    int i = 1;
    ps.setString(i++, text(r.requestId()));
    ps.setLong(i++, r.startedAtEpochMillis());
    ps.setString(i++, text(r.tenant()));
    ps.setString(i++, text(r.model()));
    ps.setString(i++, text(r.upstream()));
    ps.setString(i++, text(r.endpoint()));
    ps.setBoolean(i++, r.streamed());
    count(ps, i++, r.httpStatus());
    ps.setString(i++, r.errorClass() == null ? null : r.errorClass().wireName());
    ps.setString(i++, cut(r.error()));
    ps.setString(i++, text(r.finishReason()));
    count(ps, i++, r.inputTokens());
    count(ps, i++, r.outputTokens());
    ps.setString(i++, r.outputTokensSource() == null ? null : r.outputTokensSource().wireName());
    count(ps, i++, r.reasoningTokens());
    count(ps, i++, r.cachedTokens());
    millis(ps, i++, r.proxyQueueNanos());
    millis(ps, i++, r.ttftNanos());
    real(ps, i++, r.tpotNanos() / 1e6);
    real(ps, i++, r.decodeTokensPerSecond());
    millis(ps, i++, r.e2eNanos());
    millis(ps, i++, r.itlP50Nanos());
    millis(ps, i++, r.itlP99Nanos());
    millis(ps, i++, r.itlMaxNanos());
    ps.setInt(i++, r.chunks());
    ps.setInt(i++, r.inFlightAtStart());
    real(ps, i++, r.cost());
    ps.setString(i++, text(r.currency()));
    ps.setString(i++, r.conversation());
    PromptBlocks blocks = r.promptBlocksOrNull();
    ps.setString(i++, blocks == null ? null : blocks.encoded());
    count(ps, i++, blocks == null ? -1 : blocks.chars());
    ps.setString(i, proxyId);
  }

  /** The request in the current row of a result of {@link #SELECT_ALL}. */
  static MeteredRequest read(ResultSet rs) throws SQLException {
    String errorClass = rs.getString("error_class");
    String source = rs.getString("output_tokens_source");
    return new MeteredRequest(
        rs.getString("request_id"),
        rs.getLong("started_at_epoch_ms"),
        rs.getString("tenant"),
        rs.getString("model"),
        rs.getString("upstream"),
        rs.getString("endpoint"),
        rs.getBoolean("streamed"),
        count(rs, "http_status"),
        errorClass == null ? null : errorClass(errorClass),
        rs.getString("error"),
        rs.getString("finish_reason"),
        count(rs, "input_tokens"),
        count(rs, "output_tokens"),
        source == null ? null : TokenCountSource.valueOf(source.toUpperCase(java.util.Locale.ROOT)),
        count(rs, "reasoning_tokens"),
        count(rs, "cached_tokens"),
        nanos(rs, "proxy_queue_ms"),
        nanos(rs, "ttft_ms"),
        real(rs, "tpot_ms") * 1e6,
        nanos(rs, "e2e_ms"),
        nanos(rs, "itl_p50_ms"),
        nanos(rs, "itl_p99_ms"),
        nanos(rs, "itl_max_ms"),
        rs.getInt("chunks"),
        rs.getInt("in_flight_at_start"),
        real(rs, "cost"),
        rs.getString("currency"),
        rs.getString("conversation"),
        blocks(rs));
  }

  /** The row's prompt blocks, or null when it has none (capture off, or a row from before V4). */
  static PromptBlocks blocks(ResultSet rs) throws SQLException {
    String encoded = rs.getString("prompt_blocks");
    int chars = count(rs, "prompt_chars");
    return encoded == null || chars < 0 ? null : PromptBlocks.decode(encoded, chars);
  }

  /** The class whose wire name is {@code wireName}. */
  static ErrorClass errorClass(String wireName) {
    for (ErrorClass c : ErrorClass.values()) {
      if (c.wireName().equals(wireName)) {
        return c;
      }
    }
    throw new IllegalArgumentException("unknown error class " + wireName);
  }

  private static String cut(String s) {
    return s == null || s.length() <= MAX_ERROR_CHARS ? text(s) : text(s.substring(0, MAX_ERROR_CHARS));
  }

  /** {@code s} without NUL characters, which PostgreSQL refuses in text (an upstream may send them). */
  private static String text(String s) {
    return s == null || s.indexOf('\0') < 0 ? s : s.replace("\0", "");
  }

  private static void count(PreparedStatement ps, int i, int value) throws SQLException {
    if (value < 0) {
      ps.setNull(i, Types.INTEGER);
    } else {
      ps.setInt(i, value);
    }
  }

  private static void millis(PreparedStatement ps, int i, long nanos) throws SQLException {
    real(ps, i, nanos < 0 ? Double.NaN : nanos / 1e6);
  }

  private static void real(PreparedStatement ps, int i, double value) throws SQLException {
    if (Double.isNaN(value) || Double.isInfinite(value)) {
      ps.setNull(i, Types.DOUBLE);
    } else {
      ps.setDouble(i, value);
    }
  }

  /** A count column: {@code -1} for NULL. */
  static int count(ResultSet rs, String column) throws SQLException {
    int v = rs.getInt(column);
    return rs.wasNull() ? -1 : v;
  }

  /** Nanoseconds from a millisecond column: {@code -1} for NULL. */
  static long nanos(ResultSet rs, String column) throws SQLException {
    double ms = rs.getDouble(column);
    return rs.wasNull() ? -1 : Math.round(ms * 1e6);
  }

  /** A real column: NaN for NULL. */
  static double real(ResultSet rs, String column) throws SQLException {
    double v = rs.getDouble(column);
    return rs.wasNull() ? Double.NaN : v;
  }
}
