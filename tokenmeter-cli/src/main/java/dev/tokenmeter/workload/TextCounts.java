package dev.tokenmeter.workload;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.tokenizer.Tokenizer;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Locale;

/**
 * {@code tokens TEXT}: one text counted with several tokenizers side by side, as a table or as one
 * JSON line per tokenizer (characters, words, tokens, ratios, the cost at a price per 1M tokens,
 * the ids and pieces when asked). {@link JsonlCounter} does the same for every record of a
 * dataset. Immutable; thread-safe when its tokenizers are.
 */
public final class TextCounts {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final List<Tokenizer> tokenizers;
  private final Double pricePerMillion;
  private final boolean ids;

  /**
   * @param pricePerMillion USD per 1M tokens for a cost column, or null for none
   * @param ids whether to list each token's id and piece
   */
  public TextCounts(List<Tokenizer> tokenizers, Double pricePerMillion, boolean ids) {
    this.tokenizers = List.copyOf(tokenizers);
    this.pricePerMillion = pricePerMillion;
    this.ids = ids;
  }

  /** Words: runs of non-white-space characters. */
  static long words(String s) {
    long n = 0;
    boolean inWord = false;
    for (int i = 0; i < s.length(); ) {
      int cp = s.codePointAt(i);
      boolean space = Character.isWhitespace(cp);
      if (!space && !inWord) {
        n++;
      }
      inWord = !space;
      i += Character.charCount(cp);
    }
    return n;
  }

  /** The table: characters and words of {@code input}, then a row per tokenizer. */
  public String table(String input) {
    long chars = input.codePointCount(0, input.length());
    long words = words(input);
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT, "%d characters, %d words%n", chars, words));
    int width = Math.max(12, tokenizers.stream().mapToInt(t -> t.name().length()).max().orElse(0));
    String nameFormat = "%-" + width + "s";
    String header = String.format(Locale.ROOT, nameFormat + " %10s %12s %12s", "tokenizer", "tokens", "chars/token", "words/token");
    sb.append(header).append(pricePerMillion == null ? "" : String.format(Locale.ROOT, " %12s", "cost USD")).append('\n');
    for (Tokenizer t : tokenizers) {
      int[] idsOf = t.encode(input);
      int n = idsOf.length;
      sb.append(String.format(Locale.ROOT, nameFormat + " %10d %12s %12s", t.name(), n, ratio(chars, n), ratio(words, n)));
      if (pricePerMillion != null) {
        sb.append(String.format(Locale.ROOT, " %12.6f", cost(n)));
      }
      sb.append('\n');
      if (ids) {
        for (int id : idsOf) {
          sb.append(String.format(Locale.ROOT, "  %8d  %s%n", id, quote(t.piece(id))));
        }
      }
    }
    return sb.toString();
  }

  /** One JSON object per tokenizer, each on its own line. */
  public String jsonLines(String input) {
    StringBuilder sb = new StringBuilder();
    for (Tokenizer t : tokenizers) {
      sb.append(jsonLine(t, input)).append(System.lineSeparator());
    }
    return sb.toString();
  }

  private static String ratio(long a, int n) {
    return n == 0 ? "-" : String.format(Locale.ROOT, "%.2f", (double) a / n);
  }

  private double cost(long tokens) {
    return tokens * pricePerMillion / 1_000_000.0;
  }

  /** A piece as a JSON string literal, so spaces, newlines and control characters show. */
  private static String quote(String piece) {
    try {
      return MAPPER.writeValueAsString(piece);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private String jsonLine(Tokenizer t, String input) {
    int[] idsOf = t.encode(input);
    StringWriter w = new StringWriter();
    try (JsonGenerator g = MAPPER.getFactory().createGenerator(w)) {
      g.writeStartObject();
      g.writeStringField("tokenizer", t.name());
      g.writeNumberField("count", idsOf.length);
      g.writeNumberField("chars", input.codePointCount(0, input.length()));
      g.writeNumberField("words", words(input));
      if (pricePerMillion != null) {
        g.writeNumberField("cost_usd", cost(idsOf.length));
      }
      if (ids) {
        g.writeArrayFieldStart("ids");
        for (int id : idsOf) {
          g.writeNumber(id);
        }
        g.writeEndArray();
        g.writeArrayFieldStart("pieces");
        for (int id : idsOf) {
          g.writeString(t.piece(id));
        }
        g.writeEndArray();
      }
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException("writing into memory failed", e);
    }
    return w.toString();
  }
}
