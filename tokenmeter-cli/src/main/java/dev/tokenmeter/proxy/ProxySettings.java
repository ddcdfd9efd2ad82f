package dev.tokenmeter.proxy;

import dev.tokenmeter.proxy.balance.Balance;
import dev.tokenmeter.governance.BudgetPlan;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The proxy's settings as the user wrote them, from flags or a {@code --config} file (YAML or
 * JSON), before validation; {@link #resolve} checks all of them and lists every mistake, one line
 * each. Mutable, single-threaded: built, merged, resolved once at start.
 *
 * <p>File form (JSON has the same keys):
 *
 * <pre>
 * listen: 127.0.0.1:8080
 * upstreams:
 *   - {name: vllm, url: http://10.0.0.5:8000}
 *   - {name: openai, url: https://api.openai.com, api_key_env: OPENAI_API_KEY}
 * # or a mapping: upstreams: {vllm: http://10.0.0.5:8000, openai: {url: https://api.openai.com, api_key_env: ...}}
 * routes:
 *   - {model: "gpt-*", upstream: openai}
 *   - {model: "llama-*", upstream: "h100,a100"}   # a pool: --balance picks one per request
 * balance: tps                      # or round-robin, least-in-flight
 * fluid_tps: 30
 * tps_seeds: {h100: results/h100-sweep}
 * route_header: x-upstream
 * conversation_header: x-session-id   # the conversation key the ledger records
 * trace_capture: true               # hash prompts into blocks for proxy export-trace (default on)
 * trace_key_env: TOKENMETER_TRACE_KEY   # the hashes' key, shared by a fleet (default: that variable, else random)
 * trace_block_chars: 256            # characters per hashed block
 * tenants: {keys_file: keys.txt, header: x-tenant, unknown: refuse}
 * prices_file: prices.yaml
 * ledger: tokenmeter-ledger.db      # or jdbc:postgresql://host:5432/db, or none
 * budgets:
 *   - {tenant: acme, limit: 2000000 tokens, period: day, enforce: true}
 *   - {tenant: acme, limit: 250 USD, period: month}   # the price table's currency
 * budget_default_output_tokens: 4096   # reserved when a request names no max_tokens
 * context_lengths: {"llama-3.1-*": 131072}   # held instead: the context less the prompt
 * budget_sync_ms: 1000             # read the rest of the fleet's spend this often; 0: off
 * proxy_id: edge-1                  # this proxy in the ledger's proxy_id (default HOST:PID)
 * alert_webhook: http://127.0.0.1:9000/hook   # budget notices and SLO alerts
 * admin_token: 6f1c...            # /dashboard asks for it (needed on a non-loopback listen)
 * max_in_flight: 4096              # requests forwarded at once; an upstream entry may have its own
 * max_queued: 1024                  # requests waiting per limit, then 503
 * queue_timeout_ms: 10000           # the longest wait for a slot, then 503
 * max_connections: 10000            # client connections at once; one more: 503 and closed
 * idle_timeout_ms: 300000           # an idle client connection is closed
 * tls_cert: cert.pem                # TLS on the listener: PEM chain and PKCS#8 key, reloaded on change
 * tls_key: key.pem
 * slos:                             # the --slo grammar, per model glob / upstream / tenant
 *   - {objective: "ttft.p99<=750ms,errors<=1%"}
 *   - {objective: "tps.p10>=30", model: "llama*", tenant: acme}
 * </pre>
 */
public final class ProxySettings {
  /**
   * An upstream as written: {@code name} may be null for a lone unnamed one; {@code caCert} (a
   * PEM file) only for https, null for the JDK's trust store.
   */
  public record UpstreamSpec(String name, String url, String apiKeyEnv, String caCert) {
    public UpstreamSpec(String name, String url, String apiKeyEnv) {
      this(name, url, apiKeyEnv, null);
    }
  }

  /** A budget as written: {@code limit} {@code N tokens} or {@code N CUR}; {@code enforce} true or false. */
  public record BudgetSpec(String tenant, String limit, String period, String enforce) {
    /** The {@code --budget TENANT=LIMIT/PERIOD[/enforce]} form. */
    public static BudgetSpec flag(String text) {
      return BudgetSettings.flag(text);
    }
  }

  /** An SLO as written: objectives in the {@code --slo} grammar, and its scope (null: any). */
  public record SloSpec(String objective, String model, String upstream, String tenant) {
    /** The {@code --slo [SCOPE:]OBJECTIVES} form. */
    public static SloSpec flag(String text) {
      return SloSettings.flag(text);
    }
  }

  /** The {@code --context-length GLOB=TOKENS} form, added to {@code flags}. */
  public static void contextLengthFlag(String text, ProxySettings flags) {
    BudgetSettings.contextLengthFlag(text, flags.contextLengths);
  }

  /** A route as written. */
  public record RouteSpec(String model, String upstream) {}

  public String listen;
  public List<UpstreamSpec> upstreams = new ArrayList<>();
  public List<RouteSpec> routes = new ArrayList<>();
  public String routeHeader;
  /** A request header carrying the conversation key (docs/PROXY.md, "Conversations"); null: none. */
  public String conversationHeader;
  /** Whether prompts are hashed for proxy export-trace (docs/PROXY.md, "Capturing a trace"); null: on. */
  public Boolean traceCapture;
  /** The environment variable holding the hashes' key; null: {@link PromptCapture#DEFAULT_KEY_ENV} or random. */
  public String traceKeyEnv;
  /** Characters per hashed block; null: {@link PromptCapture#DEFAULT_BLOCK_CHARS}. */
  public Integer traceBlockChars;
  public String keysFile;
  public String tenantHeader;
  public String unknownKeys;
  public String pricesFile;
  /** A PEM file to trust for every https upstream that names none of its own. */
  public String caCert;
  public Integer ioThreads;
  public Integer recordThreads;
  public Integer recordQueue;
  /** Where records go: a SQLite file, a {@code jdbc:postgresql:} URL, or {@code none}; null: the default. */
  public String ledger;

  /** tps, round-robin or least-in-flight; null when not given. */
  public String balance;
  /** The fluid threshold for {@code tps}, tokens/s; null: {@link Balance#DEFAULT_FLUID_TPS}. */
  public Double fluidTps;
  /** Bench run folders whose summary.json seeds an upstream's TPS curve, by upstream name. */
  public Map<String, String> tpsSeeds = new LinkedHashMap<>();
  public List<BudgetSpec> budgets = new ArrayList<>();
  public Integer budgetDefaultOutput;
  /** Context length in tokens by model glob, in order (a null value: not a number, reported). */
  public Map<String, Integer> contextLengths = new LinkedHashMap<>();
  /** How often the rest of the fleet's spend is read, ms (0: off); null: {@link dev.tokenmeter.governance.BudgetSync#DEFAULT_INTERVAL_NANOS}. */
  public Long budgetSyncMillis;
  /** This proxy's id in the ledger's {@code proxy_id}; null: {@link #defaultProxyId()}. */
  public String proxyId;
  public String alertWebhook;
  /** The dashboard's admin token; null: none. */
  public String adminToken;
  public List<SloSpec> slos = new ArrayList<>();
  /** Requests in flight through the proxy at once; null: {@link AdmissionLimits#DEFAULT_MAX_IN_FLIGHT}. */
  public Integer maxInFlight;
  /** Requests in flight to one upstream at once, by name (an entry's {@code max_in_flight}). */
  public Map<String, Integer> maxInFlightByUpstream = new LinkedHashMap<>();
  /** Requests waiting per limit; null: {@link AdmissionLimits#DEFAULT_MAX_QUEUED}. */
  public Integer maxQueued;
  /** The longest wait for a slot, ms; null: {@link AdmissionLimits#DEFAULT_QUEUE_TIMEOUT_NANOS}. */
  public Long queueTimeoutMillis;
  /** Client connections at once; null: {@link AdmissionLimits#DEFAULT_MAX_CONNECTIONS}. */
  public Integer maxConnections;
  /** An idle client connection is closed after this, ms; null: {@link AdmissionLimits#DEFAULT_IDLE_TIMEOUT_NANOS}. */
  public Long idleTimeoutMillis;

  /** {@code --max-in-flight N} (the proxy's limit) or {@code NAME=N} (an upstream's), into {@code flags}. */
  public static void maxInFlightFlag(String text, ProxySettings flags) {
    AdmissionSettings.flag(text, flags);
  }

  /** PEM certificate chain and key of the listener's TLS; both or neither. */
  public String tlsCert;
  public String tlsKey;

  /** The problems found so far while reading (a file's unknown keys, wrong types). */
  private final List<String> problems = new ArrayList<>();

  /** Notes a mistake of form found while reading, for {@link #resolve} to list. */
  void problem(String line) {
    problems.add(line);
  }

  /**
   * Reads a settings file; mistakes of form are kept for {@link #resolve} to report with the
   * others. Relative file names inside it are resolved against its folder ({@link
   * SettingsFileReader}).
   *
   * @throws IllegalArgumentException when the file cannot be read or parsed at all
   */
  public static ProxySettings read(Path file) {
    return SettingsFileReader.read(file);
  }

  /**
   * This file's settings with those of {@code flags} on top: a scalar the flags set replaces the
   * file's; upstreams or routes given as flags replace the file's list.
   */
  public ProxySettings overriddenBy(ProxySettings flags) {
    ProxySettings m = new ProxySettings();
    m.problems.addAll(problems);
    m.problems.addAll(flags.problems);
    m.listen = or(flags.listen, listen);
    m.upstreams = flags.upstreams.isEmpty() ? upstreams : flags.upstreams;
    m.routes = flags.routes.isEmpty() ? routes : flags.routes;
    m.routeHeader = or(flags.routeHeader, routeHeader);
    m.conversationHeader = or(flags.conversationHeader, conversationHeader);
    m.traceCapture = or(flags.traceCapture, traceCapture);
    m.traceKeyEnv = or(flags.traceKeyEnv, traceKeyEnv);
    m.traceBlockChars = or(flags.traceBlockChars, traceBlockChars);
    m.keysFile = or(flags.keysFile, keysFile);
    m.tenantHeader = or(flags.tenantHeader, tenantHeader);
    m.unknownKeys = or(flags.unknownKeys, unknownKeys);
    m.pricesFile = or(flags.pricesFile, pricesFile);
    m.caCert = or(flags.caCert, caCert);
    m.ioThreads = or(flags.ioThreads, ioThreads);
    m.recordThreads = or(flags.recordThreads, recordThreads);
    m.recordQueue = or(flags.recordQueue, recordQueue);
    m.ledger = or(flags.ledger, ledger);
    m.balance = or(flags.balance, balance);
    m.fluidTps = or(flags.fluidTps, fluidTps);
    m.tpsSeeds = flags.tpsSeeds.isEmpty() ? tpsSeeds : flags.tpsSeeds;
    m.budgets = flags.budgets.isEmpty() ? budgets : flags.budgets;
    m.budgetDefaultOutput = or(flags.budgetDefaultOutput, budgetDefaultOutput);
    m.contextLengths = flags.contextLengths.isEmpty() ? contextLengths : flags.contextLengths;
    m.budgetSyncMillis = or(flags.budgetSyncMillis, budgetSyncMillis);
    m.proxyId = or(flags.proxyId, proxyId);
    m.alertWebhook = or(flags.alertWebhook, alertWebhook);
    m.adminToken = or(flags.adminToken, adminToken);
    m.slos = flags.slos.isEmpty() ? slos : flags.slos;
    m.maxInFlight = or(flags.maxInFlight, maxInFlight);
    m.maxInFlightByUpstream.putAll(maxInFlightByUpstream);
    m.maxInFlightByUpstream.putAll(flags.maxInFlightByUpstream);
    m.maxQueued = or(flags.maxQueued, maxQueued);
    m.queueTimeoutMillis = or(flags.queueTimeoutMillis, queueTimeoutMillis);
    m.maxConnections = or(flags.maxConnections, maxConnections);
    m.tlsCert = or(flags.tlsCert, tlsCert);
    m.tlsKey = or(flags.tlsKey, tlsKey);
    m.idleTimeoutMillis = or(flags.idleTimeoutMillis, idleTimeoutMillis);
    return m;
  }

  /**
   * Checks every setting and builds the configuration.
   *
   * @param env the environment, for {@code api_key_env}
   * @throws IllegalArgumentException listing every mistake, one line each
   */
  public ProxyConfig resolve(Map<String, String> env) {
    List<String> errors = new ArrayList<>(problems);
    InetSocketAddress address = listenAddress(errors);
    Map<String, Upstream> byName = UpstreamsSettings.resolve(upstreams, caCert, env, errors);
    List<String> declared = UpstreamsSettings.declared(upstreams);
    List<Routing.Route> routeList = UpstreamsSettings.routes(routes, declared, errors);
    Balance pools = BalanceSettings.resolve(balance, fluidTps, tpsSeeds, declared, errors);
    Tenants tenants = SettingsFiles.tenants(keysFile, tenantHeader, unknownKeys, errors);
    Prices prices = pricesFile == null ? Prices.none() : SettingsFiles.prices(Path.of(pricesFile), errors);
    BudgetPlan plan = BudgetSettings.plan(budgets, budgetDefaultOutput, alertWebhook, tenants,
        keysFile != null && tenantHeader == null, prices, contextLengths, budgetSyncMillis, errors);
    List<dev.tokenmeter.governance.LiveSlo> live = SloSettings.slos(slos, Set.copyOf(declared), tenants,
        keysFile != null && tenantHeader == null, errors);
    AdmissionLimits admission = AdmissionSettings.resolve(maxInFlight, maxInFlightByUpstream, maxQueued,
        queueTimeoutMillis, maxConnections, idleTimeoutMillis, declared, errors);
    ListenerTls tls = ServerTls.settings(tlsCert, tlsKey, errors);
    PromptCapture capture = PromptCapture.resolve(traceCapture, traceBlockChars, traceKeyEnv, env, errors);
    int io = positive("io_threads", ioThreads, 1, errors);
    int rec = positive("record_threads", recordThreads, 1, errors);
    int queue = positive("record_queue", recordQueue, ProxyConfig.DEFAULT_RECORD_QUEUE, errors);
    if (proxyId != null && !validProxyId(proxyId)) {
      errors.add("proxy_id '" + proxyId + "': 1 to " + MAX_PROXY_ID_CHARS
          + " characters without spaces or control characters, e.g. edge-1");
    }
    if (adminToken != null && adminToken.strip().length() < 16) {
      errors.add("admin_token: at least 16 characters, e.g. the output of 'openssl rand -hex 16'");
    }
    if (!errors.isEmpty()) {
      throw new IllegalArgumentException(
          (errors.size() == 1 ? "a mistake" : errors.size() + " mistakes") + " in the proxy's settings:\n  "
              + String.join("\n  ", errors));
    }
    return new ProxyConfig(address, new Routing(byName, routeList, routeHeader, pools), tenants, prices,
        io, rec, queue, ProxyConfig.DEFAULT_MAX_REQUEST_BYTES, plan, adminToken == null ? null : adminToken.strip(), live, admission, tls, conversationHeader, capture);
  }

  /**
   * Only the SLOs, checked as {@link #resolve} checks them, for {@code proxy alert-rules}: an
   * upstream scope is checked when upstreams are given.
   *
   * @throws IllegalArgumentException listing every mistake, one line each
   */
  public List<dev.tokenmeter.governance.LiveSlo> resolveSlos() {
    return SloSettings.only(this, problems);
  }

  /** Longest {@code proxy_id}. */
  static final int MAX_PROXY_ID_CHARS = 100;

  private static boolean validProxyId(String id) {
    return !id.isEmpty() && id.length() <= MAX_PROXY_ID_CHARS
        && id.codePoints().noneMatch(c -> Character.isWhitespace(c) || Character.isISOControl(c));
  }

  /** The proxy id written with every ledger row: {@link #proxyId} when given, else {@link #defaultProxyId()}. */
  public String proxyIdOrDefault() {
    return proxyId != null ? proxyId : defaultProxyId();
  }

  /**
   * {@code HOST:PID}, unique among the proxies running at once (HOST is the kernel's host name, read
   * without a DNS lookup, or {@code localhost}).
   */
  public static String defaultProxyId() {
    String host;
    try {
      host = Files.readString(Path.of("/proc/sys/kernel/hostname")).strip();
    } catch (IOException | RuntimeException e) {
      host = System.getenv().getOrDefault("HOSTNAME", "localhost");
    }
    String id = host + ":" + ProcessHandle.current().pid();
    return validProxyId(id) ? id : "localhost:" + ProcessHandle.current().pid();
  }

  private InetSocketAddress listenAddress(List<String> errors) {
    String spec = listen == null ? "127.0.0.1:8080" : listen.strip();
    int colon = spec.lastIndexOf(':');
    String host = colon < 0 ? "127.0.0.1" : spec.substring(0, colon);
    String port = colon < 0 ? spec : spec.substring(colon + 1);
    if (host.isEmpty()) {
      host = "127.0.0.1"; // ":8080": loopback unless another address is named
    }
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    try {
      int p = Integer.parseInt(port);
      if (p < 0 || p > 65_535) {
        throw new NumberFormatException();
      }
      return new InetSocketAddress(host, p);
    } catch (NumberFormatException e) {
      errors.add("listen '" + spec + "': write HOST:PORT, e.g. 127.0.0.1:8080 (port 0-65535)");
      return null;
    }
  }

  private static int positive(String what, Integer value, int fallback, List<String> errors) {
    if (value == null) {
      return fallback;
    }
    if (value < 1) {
      errors.add(what + " must be at least 1, got " + value);
    }
    return value;
  }

  private static <T> T or(T first, T second) {
    return first != null ? first : second;
  }

  /** An I/O error in one line: "no such file" rather than the bare path Java gives. */
  static String describe(IOException e) {
    if (e instanceof java.nio.file.NoSuchFileException) {
      return "no such file";
    }
    if (e instanceof java.nio.file.AccessDeniedException) {
      return "permission denied";
    }
    return firstLine(e.getMessage());
  }

  static String firstLine(String s) {
    if (s == null) {
      return "unknown error";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }
}
