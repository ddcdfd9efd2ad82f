package dev.tokenmeter.workload;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the JSONL trace formats, one request object a line: {@link TraceFormat#MOONCAKE} and
 * {@link TraceFormat#BAILIAN} ({@code timestamp}, {@code input_length}, {@code output_length},
 * {@code hash_ids}; Bailian's timestamp in seconds, its sessions from the {@code parent_chat_id}
 * chain) and {@link TraceFormat#TOKENMETER} ({@code at_ms}, {@code input_tokens}, {@code
 * output_tokens}, {@code session}, {@code turn}, and a {@code block_tokens} the file may name).
 * Owns the state only these formats have: the file's own block size and each Bailian chat's
 * session. Field layouts and sources: {@link TraceFormat}.
 */
final class JsonTraceReader extends TraceReader {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long NANOS_PER_MILLI = 1_000_000L;

  /** A tokenmeter trace's own block_tokens, 0 until a record names it. */
  private int fileBlockTokens;
  private long fileBlockLine;
  /** Bailian: each chat id's session (its root chat's id). */
  private final Map<Long, String> sessionOfChat = new HashMap<>();

  JsonTraceReader(Path file, TraceFormat format, int blockTokens) {
    super(file, format, blockTokens);
  }

  @Override
  void read(List<String> lines, int first) {
    for (int i = first; i < lines.size(); i++) {
      if (!lines.get(i).isBlank()) {
        json(lines.get(i), i + 1);
      }
    }
  }

  /** Tokens per block of the hash ids: given, else the file's own, else the format's. */
  @Override
  int blockTokens() {
    if (givenBlockTokens > 0) {
      return givenBlockTokens;
    }
    return fileBlockTokens > 0 ? fileBlockTokens : format.defaultBlockTokens();
  }

  private void json(String text, long line) {
    JsonNode n;
    try {
      n = JSON.readTree(text);
    } catch (JsonProcessingException e) {
      throw bad(line, "not a JSON object (" + e.getOriginalMessage() + "): one request per line");
    }
    if (n == null || !n.isObject()) {
      throw bad(line, "not a JSON object: one request per line");
    }
    boolean ours = format == TraceFormat.TOKENMETER;
    boolean bailian = format == TraceFormat.BAILIAN;
    String timeField = ours ? "at_ms" : "timestamp";
    JsonNode t = n.get(timeField);
    if (t == null || !t.isNumber() || !(t.asDouble() >= 0)) {
      throw bad(line, "\"" + timeField + "\" must be a number of " + (bailian ? "seconds" : "milliseconds")
          + " >= 0, got " + t);
    }
    int in = length(n, ours ? "input_tokens" : "input_length", line);
    int out = length(n, ours ? "output_tokens" : "output_length", line);
    if (ours) {
      fileBlockTokens(n.get("block_tokens"), line);
    }
    long[] ids = hashIds(n.get("hash_ids"), in, line);
    String session = null;
    int turn = 0;
    if (bailian) {
      session = bailianSession(n, line);
      turn = turn(n.get("turn"), line);
      add(Math.round(t.asDouble() * 1e9), in, out, ids, session, turn, line);
      return;
    }
    if (ours) {
      JsonNode s = n.get("session");
      session = s == null || s.isNull() ? null : s.asText();
      turn = turn(n.get("turn"), line);
    }
    add(Math.round(t.asDouble() * NANOS_PER_MILLI), in, out, ids, session, turn, line);
  }

  private int turn(JsonNode tn, long line) {
    if (tn == null || tn.isNull()) {
      return 0;
    }
    if (!tn.canConvertToInt() || tn.asInt() < 1) {
      throw bad(line, "\"turn\" must be a whole number >= 1, got " + tn);
    }
    return tn.asInt();
  }

  /** A tokenmeter record's block_tokens: the same on every record that has one. */
  private void fileBlockTokens(JsonNode v, long line) {
    if (v == null || v.isNull()) {
      return;
    }
    if (!v.isIntegralNumber() || !v.canConvertToInt() || v.asInt() < 1) {
      throw bad(line, "\"block_tokens\" must be a whole number >= 1, got " + v);
    }
    int b = v.asInt();
    if (fileBlockTokens == 0) {
      if (givenBlockTokens > 0 && givenBlockTokens != b) {
        throw bad(line, "the trace's blocks are " + b + " tokens (\"block_tokens\") but --trace-block-tokens says "
            + givenBlockTokens + ": drop --trace-block-tokens");
      }
      fileBlockTokens = b;
      fileBlockLine = line;
    } else if (b != fileBlockTokens) {
      throw bad(line, "\"block_tokens\" is " + b + " here but " + fileBlockTokens + " on line " + fileBlockLine
          + ": one trace has one block size");
    }
  }

  /**
   * A Bailian record's session: the chat id of its conversation's root (parent_chat_id -1), found
   * through the parents read before it; a parent not in the file is taken as the root.
   */
  private String bailianSession(JsonNode n, long line) {
    JsonNode chat = n.get("chat_id");
    JsonNode parent = n.get("parent_chat_id");
    if (chat == null || !chat.isIntegralNumber()) {
      throw bad(line, "\"chat_id\" must be a whole number, got " + chat);
    }
    long parentId = parent == null || parent.isNull() ? -1 : parent.asLong(-1);
    String session = parentId < 0 ? "chat-" + chat.asLong()
        : sessionOfChat.getOrDefault(parentId, "chat-" + parentId);
    sessionOfChat.put(chat.asLong(), session);
    return session;
  }

  private int length(JsonNode n, String field, long line) {
    JsonNode v = n.get(field);
    if (v == null || !v.canConvertToInt() || v.asInt() < 1 || !v.isIntegralNumber()) {
      throw bad(line, "\"" + field + "\" must be a whole number of tokens >= 1, got " + v);
    }
    return v.asInt();
  }

  private long[] hashIds(JsonNode v, int inputTokens, long line) {
    if (v == null || v.isNull()) {
      return new long[0];
    }
    if (!v.isArray()) {
      throw bad(line, "\"hash_ids\" must be an array of whole numbers, got " + v);
    }
    long[] ids = new long[v.size()];
    for (int i = 0; i < ids.length; i++) {
      JsonNode id = v.get(i);
      if (!id.isIntegralNumber() || !id.canConvertToLong()) {
        throw bad(line, "\"hash_ids\" item " + i + " must be a whole number, got " + id);
      }
      ids[i] = id.asLong();
    }
    int blockTokens = blockTokens();
    long blocks = (inputTokens + (long) blockTokens - 1) / blockTokens;
    if (ids.length > blocks) {
      throw bad(line, "\"hash_ids\" names " + ids.length + " blocks of " + blockTokens + " tokens but the prompt is "
          + inputTokens + " tokens (" + blocks + " blocks at most): fix the record, or give the trace's block size"
          + " with --trace-block-tokens");
    }
    return ids;
  }
}
