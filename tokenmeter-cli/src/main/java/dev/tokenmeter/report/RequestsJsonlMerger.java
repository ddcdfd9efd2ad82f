package dev.tokenmeter.report;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Concatenates the parts' {@code requests.jsonl} into one, part 0's lines first, each line given a
 * leading {@code "part": i} field (its index in {@code merged_from}). Lines are otherwise copied
 * byte for byte: times stay offsets from their own part's start. Stateless.
 */
public final class RequestsJsonlMerger {
  private RequestsJsonlMerger() {}

  /**
   * Writes {@code out} from {@code parts} (a missing part file contributes no line) and returns the
   * number of lines written.
   */
  public static long merge(List<Path> parts, Path out) throws IOException {
    long lines = 0;
    try (BufferedWriter w = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
      for (int i = 0; i < parts.size(); i++) {
        if (!Files.isRegularFile(parts.get(i))) {
          continue;
        }
        String prefix = "{\"part\":" + i;
        try (BufferedReader r = Files.newBufferedReader(parts.get(i), StandardCharsets.UTF_8)) {
          String line;
          while ((line = r.readLine()) != null) {
            String body = line.strip();
            if (body.isEmpty()) {
              continue;
            }
            if (!body.startsWith("{")) {
              throw new IOException(parts.get(i) + " line " + (lines + 1) + " is not a JSON object");
            }
            String rest = body.substring(1).strip();
            w.write(prefix);
            w.write(rest.equals("}") ? "" : ",");
            w.write(rest);
            w.newLine();
            lines++;
          }
        }
      }
    }
    return lines;
  }
}
