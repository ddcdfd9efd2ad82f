package dev.tokenmeter.client;

import dev.tokenmeter.core.request.StreamItem;
import dev.tokenmeter.core.request.TextKind;
import java.util.ArrayList;
import java.util.function.Consumer;

/**
 * The fast path for OpenAI-compatible stream chunks: one pass over the payload's bytes, in place,
 * that yields exactly the items {@link ChunkParser} would, or declines.
 *
 * <p>{@link #scan} returns false, having delivered nothing, for anything outside the common shape:
 * an error object, a tool call, an escaped or non-ASCII field name, a number or nesting that needs
 * care, invalid UTF-8, or anything malformed. The caller then runs the full parse, which decides
 * (and words any failure). So a payload is either scanned to the full parser's items or not
 * scanned at all; ChunkScannerTest and ChunkScannerFuzzIT hold the two to that.
 *
 * <pre>
 * design notes
 * - Why: the client reads one chunk per token; Jackson builds a parser, its context and a text
 *   buffer per chunk (docs/PERFORMANCE.md, "JMH"). This scan allocates only what the items hold:
 *   the delta's String and its item (the request keeps the text for the tokenizer count).
 * - Equivalence by construction: the scanner mirrors ChunkParser field by field (duplicate keys:
 *   the same last-wins or append rule), and for JSON it accepts a strict subset of what Jackson
 *   accepts by default (RFC 8259 whitespace, numbers and escapes; UTF-8 validated strictly, which
 *   is stricter than Jackson, so a string Jackson would decode differently is declined).
 * - The first chunk is scanned like the rest: its role-only delta is in the common shape.
 * </pre>
 *
 * <p>Not thread-safe (it reuses a list and a cursor); it keeps no state between payloads.
 */
final class ChunkScanner {
  private final ArrayList<StreamItem> items = new ArrayList<>();
  private final JsonCursor in = new JsonCursor();

  /**
   * Scans one SSE data payload; true when its items (possibly none) went to {@code out}, false when
   * nothing was delivered and the full parse must decide.
   */
  boolean scan(byte[] data, int offset, int length, Consumer<StreamItem> out) {
    if (ChunkParser.isDone(data, offset, length)) {
      out.accept(ChunkParser.DONE);
      return true;
    }
    items.clear();
    in.reset(data, offset, length);
    try {
      root();
    } catch (JsonCursor.Decline e) {
      items.clear();
      return false;
    } finally {
      in.clear();
    }
    for (int i = 0; i < items.size(); i++) {
      out.accept(items.get(i));
    }
    items.clear();
    return true;
  }

  private void root() {
    boolean recognized = false;
    StreamItem.Usage usage = null;
    if (in.open('{', '}')) {
      do {
        in.key();
        if (in.is("choices")) {
          recognized = true;
          choices();
        } else if (in.is("usage")) {
          recognized = true;
          usage = usage();
        } else if (in.is("error")) {
          throw JsonCursor.DECLINE; // errors take the full parse, which words them
        } else if (in.is("object")) {
          if (in.peekIs('"')) {
            in.string();
            if (in.is("error")) {
              throw JsonCursor.DECLINE;
            }
          } else {
            in.skip(0);
          }
        } else {
          in.skip(0);
        }
      } while (in.comma('}'));
    }
    if (!in.atEnd() || !recognized) {
      throw JsonCursor.DECLINE;
    }
    if (usage != null) {
      items.add(usage);
    }
  }

  private void choices() {
    if (in.nullLiteral()) {
      return;
    }
    if (in.open('[', ']')) {
      do {
        choice();
      } while (in.comma(']'));
    }
  }

  private void choice() {
    StreamItem.Finish finish = null;
    if (in.open('{', '}')) {
      do {
        in.key();
        if (in.is("delta") || in.is("message")) {
          delta();
        } else if (in.is("text")) {
          String text = text();
          if (text != null) {
            items.add(new StreamItem.Text(text, TextKind.CONTENT));
          }
        } else if (in.is("finish_reason")) {
          finish = finish();
        } else {
          in.skip(0);
        }
      } while (in.comma('}'));
    }
    if (finish != null) {
      items.add(finish);
    }
  }

  private void delta() {
    if (in.nullLiteral()) {
      return;
    }
    StreamItem.Role role = null;
    String content = null;
    String reasoning = null;
    String reasoningContent = null;
    if (in.open('{', '}')) {
      do {
        in.key();
        if (in.is("content")) {
          content = text();
        } else if (in.is("reasoning")) {
          reasoning = text();
        } else if (in.is("reasoning_content")) {
          reasoningContent = text();
        } else if (in.is("role")) {
          role = role();
        } else if (in.is("tool_calls")) {
          if (!in.nullLiteral()) {
            throw JsonCursor.DECLINE; // tool calls take the full parse
          }
        } else {
          in.skip(0);
        }
      } while (in.comma('}'));
    }
    // As ChunkParser: the newer reasoning field wins when vLLM sends both.
    String thought = reasoning != null ? reasoning : reasoningContent;
    if (role != null) {
      items.add(role);
    }
    if (thought != null) {
      items.add(new StreamItem.Text(thought, TextKind.REASONING));
    }
    if (content != null) {
      items.add(new StreamItem.Text(content, TextKind.CONTENT));
    }
  }

  private StreamItem.Usage usage() {
    if (in.nullLiteral()) {
      return null;
    }
    int prompt = -1;
    int completion = -1;
    int reasoning = -1;
    int cached = -1;
    if (in.open('{', '}')) {
      do {
        in.key();
        if (in.is("prompt_tokens")) {
          prompt = count();
        } else if (in.is("completion_tokens")) {
          completion = count();
        } else if (in.is("completion_tokens_details")) {
          reasoning = detail("reasoning_tokens", reasoning);
        } else if (in.is("prompt_tokens_details")) {
          cached = detail("cached_tokens", cached);
        } else {
          in.skip(0);
        }
      } while (in.comma('}'));
    }
    return new StreamItem.Usage(prompt, completion, reasoning, cached);
  }

  private int detail(String field, int previous) {
    if (in.nullLiteral()) {
      return previous;
    }
    int value = previous;
    if (in.open('{', '}')) {
      do {
        in.key();
        if (in.is(field)) {
          value = count();
        } else {
          in.skip(0);
        }
      } while (in.comma('}'));
    }
    return value;
  }

  private StreamItem.Role role() {
    if (in.nullLiteral()) {
      return null;
    }
    in.string();
    return in.is("assistant") ? ChunkParser.ASSISTANT : new StreamItem.Role(in.decoded());
  }

  private StreamItem.Finish finish() {
    if (in.nullLiteral()) {
      return null;
    }
    in.string();
    if (in.is("stop")) {
      return ChunkParser.STOP;
    }
    return in.is("length") ? ChunkParser.LENGTH : new StreamItem.Finish(in.decoded());
  }

  /** A text value: its string, or null when null or empty. */
  private String text() {
    if (in.nullLiteral()) {
      return null;
    }
    in.string();
    return in.emptyString() ? null : in.decoded();
  }

  /** A token count, or -1 for null. */
  private int count() {
    return in.nullLiteral() ? -1 : in.smallInt();
  }
}
