package dev.tokenmeter.report;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads {@code requests.jsonl} back, as a process killed mid-write leaves it: every complete line
 * is kept; a last line cut short (no newline, or not a whole JSON object) is counted and skipped,
 * as is any other line that does not parse. Stateless.
 */
public final class RequestsJsonlReader {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private RequestsJsonlReader() {}

  /**
   * What the file held.
   *
   * @param requests the lines read, in file order
   * @param tornLines lines skipped: a cut-short last line, or lines that are not a request
   */
  public record Lines(List<SavedRequest> requests, int tornLines) {
    public Lines {
      requests = List.copyOf(requests);
    }
  }

  /** Reads {@code file}. */
  public static Lines read(Path file) throws IOException {
    List<SavedRequest> requests = new ArrayList<>();
    int torn = 0;
    // InputStreamReader replaces bytes that are not UTF-8 (a binary file) instead of throwing.
    try (BufferedReader r =
        new BufferedReader(new InputStreamReader(Files.newInputStream(file), StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        if (line.isBlank()) {
          continue;
        }
        try {
          requests.add(SavedRequest.of(MAPPER.readTree(line)));
        } catch (JsonProcessingException | IllegalArgumentException e) {
          torn++;
        }
      }
    }
    return new Lines(requests, torn);
  }
}
