package dev.tokenmeter.proxy.balance;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A bench run's degradation curve, read from its {@code summary.json} ({@code sweep.points}: load
 * and median per-user decode TPS of each stage, closed loop). Immutable.
 *
 * @param source the folder it came from, for messages
 * @param points concurrency and TPS pairs, in load order
 */
public record SeedCurve(Path source, List<Point> points) {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One stage: {@code concurrency} users, median per-user decode TPS {@code tps}. */
  public record Point(int concurrency, double tps) {}

  public SeedCurve {
    points = List.copyOf(points);
  }

  /**
   * Reads {@code dir/summary.json}.
   *
   * @throws IllegalArgumentException in one line, naming the folder, the problem and the fix
   */
  public static SeedCurve read(String name, Path dir) {
    Path file = dir.resolve("summary.json");
    String where = "--tps-seed " + name + "=" + dir + ": ";
    if (!Files.isRegularFile(file)) {
      throw new IllegalArgumentException(where + "no summary.json there; name the folder of a"
          + " bench run (results/RUN)");
    }
    JsonNode root;
    try {
      root = JSON.readTree(file.toFile());
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(where + "summary.json is not JSON (" + e.getOriginalMessage() + ")");
    } catch (IOException e) {
      throw new IllegalArgumentException(where + "cannot read summary.json (" + e.getMessage() + ")");
    }
    JsonNode sweep = root.path("sweep");
    if (!sweep.path("load_kind").asText("").equals("concurrency")) {
      throw new IllegalArgumentException(where + "summary.json has no closed-loop curve (sweep with"
          + " load_kind concurrency); seed from a bench run with --concurrency stages");
    }
    List<Point> points = new ArrayList<>();
    for (JsonNode p : sweep.path("points")) {
      JsonNode tps = p.path("decode_tps_p50");
      int c = (int) Math.round(p.path("load").asDouble(0));
      if (tps.isNumber() && tps.asDouble() > 0 && c >= 1) {
        points.add(new Point(c, tps.asDouble()));
      }
    }
    if (points.isEmpty()) {
      throw new IllegalArgumentException(where + "summary.json's curve has no point with a per-user"
          + " decode TPS; seed from a run whose requests streamed two tokens or more");
    }
    return new SeedCurve(dir, points);
  }

  /** Puts every point into {@code curve}. */
  public void into(TpsCurve curve) {
    for (Point p : points) {
      curve.seed(p.concurrency(), p.tps());
    }
  }
}
