package dev.tokenmeter.proxy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * Reads a proxy settings file (YAML or JSON; the form is in {@link ProxySettings}) into a {@link
 * ProxySettings}, section by section, in a fixed order, so its mistakes of form (unknown keys,
 * wrong types) are listed in that order by {@link ProxySettings#resolve}. Owns the typed readers
 * of one key ({@link #text}, {@link #integer}, {@link #entries}) that the sections' classes use,
 * and the file's folder, against which relative file names are resolved. One instance per file,
 * single-threaded.
 */
final class SettingsFileReader {
  private static final ObjectMapper YAML = new YAMLMapper();
  private static final Set<String> KEYS =
      Set.of("listen", "upstreams", "routes", "route_header", "conversation_header", "tenants", "prices_file", "ca_cert",
          "io_threads", "record_threads", "record_queue", "ledger", "balance", "fluid_tps",
          "tps_seeds", "budgets", "budget_default_output_tokens", "context_lengths", "budget_sync_ms", "proxy_id", "alert_webhook", "admin_token", "slos",
          "max_in_flight", "max_queued", "queue_timeout_ms", "max_connections", "idle_timeout_ms",
          "tls_cert", "tls_key", "trace_capture", "trace_key_env", "trace_block_chars");

  /** The settings being read; mistakes of form go to its problems. */
  final ProxySettings s;
  /** The file's folder, for relative file names; null when it has none. */
  final Path dir;

  private SettingsFileReader(ProxySettings s, Path dir) {
    this.s = s;
    this.dir = dir;
  }

  /**
   * Reads {@code file}; mistakes of form are kept for {@link ProxySettings#resolve}.
   *
   * @throws IllegalArgumentException when the file cannot be read or parsed at all
   */
  static ProxySettings read(Path file) {
    JsonNode root;
    try {
      root = YAML.readTree(Files.readAllBytes(file));
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "cannot read the proxy config " + file + ": " + ProxySettings.describe(e));
    }
    ProxySettings s = new ProxySettings();
    if (root == null || !root.isObject()) {
      s.problem(file + ": expected a mapping of settings (listen, upstreams, routes, ...)");
      return s;
    }
    for (Iterator<String> it = root.fieldNames(); it.hasNext(); ) {
      String k = it.next();
      if (!KEYS.contains(k)) {
        s.problem(file + ": unknown setting '" + k + "'; settings: " + String.join(", ", new java.util.TreeSet<>(KEYS)));
      }
    }
    new SettingsFileReader(s, file.toAbsolutePath().getParent()).sections(root);
    return s;
  }

  /** Every section, in the order their mistakes are listed. */
  private void sections(JsonNode root) {
    s.listen = text(root, "listen");
    s.routeHeader = text(root, "route_header");
    s.conversationHeader = text(root, "conversation_header");
    trace(root);
    s.pricesFile = path(text(root, "prices_file"));
    s.caCert = path(text(root, "ca_cert"));
    s.ioThreads = integer(root, "io_threads");
    s.recordThreads = integer(root, "record_threads");
    s.recordQueue = integer(root, "record_queue");
    balance(root);
    String ledger = text(root, "ledger");
    s.ledger = ledger == null || ledger.startsWith("jdbc:") || ledger.equals("none") ? ledger : path(ledger);
    UpstreamsSettings.read(this, root.get("upstreams"));
    for (JsonNode r : list(root, "routes")) {
      s.routes.add(new ProxySettings.RouteSpec(text(r, "model"), text(r, "upstream")));
    }
    budgets(root);
    s.proxyId = text(root, "proxy_id");
    AdmissionSettings.read(this, root);
    s.tlsCert = path(text(root, "tls_cert"));
    s.tlsKey = path(text(root, "tls_key"));
    s.alertWebhook = text(root, "alert_webhook");
    s.adminToken = text(root, "admin_token");
    for (JsonNode o : list(root, "slos")) {
      s.slos.add(new ProxySettings.SloSpec(text(o, "objective"), text(o, "model"), text(o, "upstream"), text(o, "tenant")));
    }
    tenants(root.get("tenants"));
  }

  /** {@code trace_capture}, {@code trace_key_env}, {@code trace_block_chars}. */
  private void trace(JsonNode root) {
    JsonNode capture = root.get("trace_capture");
    if (capture != null && !capture.isNull()) {
      if (capture.isBoolean()) {
        s.traceCapture = capture.asBoolean();
      } else {
        s.problem("trace_capture: expected true or false, got '" + capture.asText() + "'");
      }
    }
    s.traceKeyEnv = text(root, "trace_key_env");
    s.traceBlockChars = integer(root, "trace_block_chars");
  }

  /** {@code balance}, {@code fluid_tps}, {@code tps_seeds}. */
  private void balance(JsonNode root) {
    s.balance = text(root, "balance");
    JsonNode fluid = root.get("fluid_tps");
    if (fluid != null && !fluid.isNull()) {
      if (fluid.isNumber()) {
        s.fluidTps = fluid.asDouble();
      } else {
        s.problem("fluid_tps: expected a number of tokens/s, got '" + fluid.asText() + "'");
      }
    }
    JsonNode seeds = root.get("tps_seeds");
    if (seeds != null && seeds.isObject()) {
      for (Iterator<String> it = seeds.fieldNames(); it.hasNext(); ) {
        String name = it.next();
        s.tpsSeeds.put(name, path(text(seeds, name)));
      }
    } else if (seeds != null && !seeds.isNull()) {
      s.problem("tps_seeds: expected a mapping of upstream name to bench run folder");
    }
  }

  /** {@code budgets}, {@code budget_default_output_tokens}, {@code context_lengths}, {@code budget_sync_ms}. */
  private void budgets(JsonNode root) {
    for (JsonNode b : list(root, "budgets")) {
      s.budgets.add(new ProxySettings.BudgetSpec(text(b, "tenant"), text(b, "limit"), text(b, "period"), text(b, "enforce")));
    }
    s.budgetDefaultOutput = integer(root, "budget_default_output_tokens");
    JsonNode contexts = root.get("context_lengths");
    if (contexts != null && contexts.isObject()) {
      for (Iterator<String> it = contexts.fieldNames(); it.hasNext(); ) {
        String glob = it.next();
        JsonNode t = contexts.get(glob);
        s.contextLengths.put(glob, t.canConvertToInt() && t.isIntegralNumber() ? t.asInt() : null);
      }
    } else if (contexts != null && !contexts.isNull()) {
      s.problem("context_lengths: expected a mapping of model glob to tokens, e.g. {\"llama-3*\": 131072}");
    }
    Integer sync = integer(root, "budget_sync_ms");
    s.budgetSyncMillis = sync == null ? null : sync.longValue();
  }

  /** {@code tenants: {keys_file, header, unknown}}. */
  private void tenants(JsonNode t) {
    if (t != null && t.isObject()) {
      s.keysFile = path(text(t, "keys_file"));
      s.tenantHeader = text(t, "header");
      s.unknownKeys = text(t, "unknown");
    } else if (t != null) {
      s.problem("tenants: expected a mapping (keys_file, header, unknown)");
    }
  }

  /** {@code key}'s single value as text; null when absent, or (a problem noted) not a single value. */
  String text(JsonNode parent, String key) {
    JsonNode v = parent.get(key);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isValueNode()) {
      s.problem(key + ": expected a single value, got " + v.getNodeType().toString().toLowerCase(java.util.Locale.ROOT));
      return null;
    }
    return v.asText();
  }

  /** {@code key}'s whole number; null when absent, or (a problem noted) not one. */
  Integer integer(JsonNode parent, String key) {
    JsonNode v = parent.get(key);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.canConvertToInt() || !v.isIntegralNumber()) {
      s.problem(key + ": expected a whole number, got '" + v.asText() + "'");
      return null;
    }
    return v.asInt();
  }

  private List<JsonNode> list(JsonNode parent, String key) {
    return entries(parent.get(key), key);
  }

  /** The mappings of the list {@code v} (named {@code key} in problems); empty when absent. */
  List<JsonNode> entries(JsonNode v, String key) {
    List<JsonNode> out = new ArrayList<>();
    if (v == null || v.isNull()) {
      return out;
    }
    if (!v.isArray()) {
      s.problem(key + ": expected a list");
      return out;
    }
    for (JsonNode e : v) {
      if (e.isObject()) {
        out.add(e);
      } else {
        s.problem(key + ": every entry must be a mapping, got '" + e.asText() + "'");
      }
    }
    return out;
  }

  /** {@code name} resolved against the file's folder; null stays null. */
  String path(String name) {
    return name == null || dir == null ? name : dir.resolve(name).toString();
  }
}
