package dev.tokenmeter.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every summary.json field the docs name as a dotted path ({@code `stages.0.throughput.output_tokens_per_s`},
 * {@code `partial_reason: "error"`}) exists in docs/summary.schema.json, from the root or from any
 * object in it (the docs often name a field relative to its stage): a renamed or invented field in
 * the docs fails here. Paths of the APIs' own payloads and of other files are told apart by their
 * first segment (below).
 */
class DocumentedFieldsTest {
  /** The pages that describe summary.json's fields (docs/PROXY.md and docs/DASHBOARD.md name the ledger's and production.json's). */
  private static final List<Path> DOCS = List.of(Path.of("README.md"), Path.of("docs/RESULTS.md"), Path.of("docs/METRICS.md"),
      Path.of("docs/SIMULATOR.md"), Path.of("docs/PLANNER.md"), Path.of("docs/ENERGY.md"), Path.of("docs/TRACES.md"),
      Path.of("docs/WORKERS.md"), Path.of("docs/TOKENIZERS.md"), Path.of("docs/RELIABILITY.md"));
  /**
   * A backticked span that starts with a dotted lower-case path, its arrays maybe marked {@code []}
   * ({@code stages[].gpu}), optionally followed by ": value" or " ...".
   */
  private static final Pattern PATH =
      Pattern.compile("`([a-z_]+(?:\\[\\])?(?:\\.[a-z0-9_]+(?:\\[\\])?)+)(?:[:= ][^`]*)?`");
  /** First segments of paths that are not summary.json's: the APIs' payloads, OTel names, packages, other files. */
  private static final List<String> NOT_SUMMARY = List.of("usage", "response", "delta", "message", "message_delta",
      "details", "token", "gen_ai", "tokenmeter", "dev", "error", "input_json_delta", "output_tokens_details",
      "input_tokens_details", "completion_tokens_details", "prompt_tokens_details", "stream_options", "wilcox",
      "curves", "scipy", "numpy", "tools", "choices", "candidates",
      // the workload profile of proxy export-workload (docs/TRACES.md) and the k8s ConfigMap's key
      "arrivals", "prefix", "conversations", "bench");
  private static final Pattern FILE = Pattern.compile(".*\\.(md|json|jsonl|html|ya?ml|txt|db|sh|csv|java|py|xml|lua|mjs)$");

  @Test
  void everyDocumentedSummaryFieldExists() throws IOException {
    JsonNode schema = new ObjectMapper().readTree(Path.of("docs/summary.schema.json").toFile());
    List<JsonNode> objects = new ArrayList<>();
    collectObjects(schema, schema, objects, new HashSet<>());
    List<String> missing = new ArrayList<>();
    int checked = 0;
    for (Path doc : DOCS) {
      List<String> lines = Files.readAllLines(doc);
      for (int i = 0; i < lines.size(); i++) {
        Matcher m = PATH.matcher(lines.get(i));
        while (m.find()) {
          String path = m.group(1).replace("[]", "");
          if (FILE.matcher(path).matches() || NOT_SUMMARY.contains(path.substring(0, path.indexOf('.')))) {
            continue;
          }
          checked++;
          String[] segments = path.split("\\.");
          if (objects.stream().noneMatch(o -> resolves(schema, o, segments, 0))) {
            missing.add(doc + ":" + (i + 1) + " `" + path + "`");
          }
        }
      }
    }
    assertThat(checked).as("dotted summary.json paths found in the docs").isGreaterThan(30);
    assertThat(missing).as("fields the docs name that docs/summary.schema.json does not have").isEmpty();
  }

  private static boolean resolves(JsonNode root, JsonNode node, String[] segments, int at) {
    node = deref(root, node);
    if (at == segments.length) {
      return true;
    }
    for (String combinator : List.of("anyOf", "oneOf", "allOf")) {
      if (node.has(combinator)) {
        for (JsonNode n : node.get(combinator)) {
          if (resolves(root, n, segments, at)) {
            return true;
          }
        }
      }
    }
    String segment = segments[at];
    if (segment.chars().allMatch(Character::isDigit)) {
      return node.has("items") && resolves(root, node.get("items"), segments, at + 1);
    }
    JsonNode properties = node.path("properties");
    if (properties.has(segment)) {
      return resolves(root, properties.get(segment), segments, at + 1);
    }
    if (node.path("additionalProperties").asBoolean(false)) {
      return true; // a free-form object (settings.workload): any key may follow
    }
    if (node.path("additionalProperties").isObject()) {
      return resolves(root, node.get("additionalProperties"), segments, at + 1);
    }
    return node.has("items") && resolves(root, node.get("items"), segments, at);
  }

  private static JsonNode deref(JsonNode root, JsonNode node) {
    while (node.has("$ref")) {
      String ref = node.get("$ref").asText(); // "#/$defs/name"
      node = root.at(ref.substring(1));
    }
    return node;
  }

  private static void collectObjects(JsonNode root, JsonNode node, List<JsonNode> into, Set<JsonNode> seen) {
    if (!node.isObject() || !seen.add(node)) {
      return;
    }
    if (node.has("properties")) {
      into.add(node);
    }
    node.forEach(child -> {
      if (child.isContainerNode()) {
        if (child.isArray()) {
          child.forEach(c -> collectObjects(root, c, into, seen));
        } else {
          collectObjects(root, child, into, seen);
        }
      }
    });
  }
}
