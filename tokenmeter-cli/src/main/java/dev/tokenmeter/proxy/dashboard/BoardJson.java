package dev.tokenmeter.proxy.dashboard;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/** The dashboard's feed ({@link BoardView} as JSON, snake_case names) and its page. Thread-safe. */
public final class BoardJson {
  private static final ObjectMapper JSON =
      JsonMapper.builder().propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE).build();
  private static final String PAGE_RESOURCE = "dashboard.html";

  private BoardJson() {}

  /** {@code view} as UTF-8 JSON. */
  public static byte[] write(BoardView view) {
    try {
      return JSON.writeValueAsBytes(view);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write the dashboard's JSON: " + e.getOriginalMessage(), e);
    }
  }

  /** The dashboard page: one self-contained HTML file (inline CSS, script and SVG), UTF-8. */
  public static byte[] page() {
    try (InputStream in = BoardJson.class.getResourceAsStream(PAGE_RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("the dashboard page " + PAGE_RESOURCE + " is missing from the jar");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the dashboard page", e);
    }
  }
}
