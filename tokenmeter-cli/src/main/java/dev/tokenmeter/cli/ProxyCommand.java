package dev.tokenmeter.cli;

import dev.tokenmeter.core.metrics.OutputTokenCounter;
import dev.tokenmeter.core.time.Ticker;
import dev.tokenmeter.governance.DriftBaseline;
import dev.tokenmeter.ledger.Ledger;
import dev.tokenmeter.ledger.LedgerException;
import dev.tokenmeter.ledger.Ledgers;
import dev.tokenmeter.proxy.ProxyConfig;
import dev.tokenmeter.run.RunFailedException;
import dev.tokenmeter.proxy.ProxyRun;
import dev.tokenmeter.proxy.ProxySettings;
import dev.tokenmeter.proxy.TokenCounters;
import dev.tokenmeter.tokenizer.TokenizerException;
import dev.tokenmeter.tokenizer.TokenizerResolver;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code tokenmeter proxy}: the metering reverse proxy, until Ctrl-C. */
@Command(
    name = "proxy",
    mixinStandardHelpOptions = true,
    abbreviateSynopsis = true,
    sortOptions = false,
    subcommands = {ProxyCommand.HashKey.class, ProxyUsageCommand.class, ProxyReportCommand.class, ProxyAlertRulesCommand.class,
        ProxyDriftCommand.class, ProxyExportWorkloadCommand.class, ProxyExportTraceCommand.class},
    description = {
      "Meters production traffic: a reverse proxy in front of LLM servers that records every request.",
      "Every request and response passes through unchanged; per request it records tokens in and out, TTFT, TPOT, ITL, E2E, outcome, tenant and cost in a ledger, serves /metrics and a dashboard, and enforces budgets and SLO alerts when given (docs/PROXY.md)."
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  tokenmeter proxy --listen 127.0.0.1:8080 --upstream http://127.0.0.1:8000",
      "  tokenmeter proxy --upstream vllm=http://10.0.0.5:8000 --keys keys.txt \\",
      "      --prices prices.yaml --budget 'acme=2000000 tokens/day/enforce'",
      "  tokenmeter proxy --config proxy.yaml",
      "  tokenmeter proxy usage --since 1h --by model"
    })
final class ProxyCommand implements Callable<Integer> {
  /** The ledger of {@code proxy} and {@code proxy usage} when none is named. */
  static final String DEFAULT_LEDGER = "tokenmeter-ledger.db";

  @Option(names = "--listen", paramLabel = "HOST:PORT", description = "Address to listen on (default: 127.0.0.1:8080; loopback unless another address is named).")
  String listen;

  @Option(names = "--upstream", paramLabel = "[NAME=]URL", description = "A server to forward to, http(s)://HOST:PORT; repeat as NAME=URL for several (the first is the default).")
  List<String> upstreams = List.of();

  @Option(names = "--route", paramLabel = "GLOB=NAME", description = "Send requests whose model matches GLOB (* and ?) to upstream NAME, or to a pool NAME,NAME,... (see --balance); repeatable, tried in order.")
  List<String> routes = List.of();

  @Option(names = "--balance", paramLabel = "tps|round-robin|least-in-flight", description = "How a pool (a route naming several upstreams, GLOB=A,B; all upstreams when no route matches) picks one per request: tps (highest predicted per-user TPS from each upstream's live TPS curve), round-robin, least-in-flight (docs/PROXY.md, Routing by TPS curve).")
  String balance;

  @Option(names = "--tps-seed", paramLabel = "NAME=DIR", description = "Seed upstream NAME's TPS curve from a bench run's DIR/summary.json (its concurrency sweep); repeatable; with --balance tps.")
  Map<String, String> tpsSeeds = Map.of();

  @Option(names = "--fluid-tps", paramLabel = "TOK_PER_S", description = "With --balance tps: the per-user TPS each upstream is kept above while it can (default: 30).")
  Double fluidTps;

  @Option(names = "--route-header", paramLabel = "HEADER", description = "A request header naming the upstream (e.g. x-upstream); it wins over --route.")
  String routeHeader;

  @Option(names = "--conversation-header", paramLabel = "HEADER", description = "A request header carrying the conversation key the ledger records (e.g. x-session-id); it wins over the body's prompt_cache_key, user and metadata.user_id (docs/PROXY.md, Conversations).")
  String conversationHeader;

  @Option(names = "--trace-capture", paramLabel = "on|off", description = "Hash each prompt into keyed blocks (never the text) for 'proxy export-trace' (default: on; the key from TOKENMETER_TRACE_KEY, else random per run; docs/PROXY.md, Capturing a trace).")
  String traceCapture;

  @Option(names = "--config", paramLabel = "FILE", description = "Settings file (YAML or JSON) with everything the flags say; flags given too win.")
  Path config;

  @Option(names = "--keys", paramLabel = "FILE", description = "API keys file: 'TENANT sha256:SALT:HASH' lines from 'tokenmeter proxy hash-key'.")
  Path keys;

  @Option(names = "--tenant-header", paramLabel = "HEADER", description = "A request header naming the tenant when the key is not in --keys.")
  String tenantHeader;

  @Option(names = "--unknown-keys", paramLabel = "refuse|anonymous", description = "Requests with no known key or tenant: refused with 401, or metered as 'anonymous' (default).")
  String unknownKeys;

  @Option(names = "--prices", paramLabel = "FILE", description = "Price table (YAML or JSON): currency, and per model glob input and output per 1M tokens.")
  Path prices;

  @Option(names = {"--ca-cert", "--upstream-ca"}, paramLabel = "FILE", description = "PEM certificates to trust for https upstreams (default: the JDK's trust store).")
  Path caCert;

  @Option(names = "--ledger", paramLabel = "FILE|URL|none", description = "Where every metered request is recorded: a SQLite file (default: "
      + DEFAULT_LEDGER + "), jdbc:postgresql://HOST:PORT/DB for a fleet sharing one ledger (password from the URL or PGPASSWORD), or none.")
  String ledger;

  @Option(names = "--budget", paramLabel = "TENANT=LIMIT/PERIOD[/enforce]", description = "A tenant's budget, e.g. 'acme=2000000 tokens/day/enforce' or 'acme=250 USD/month' (the price table's currency); repeatable. Notices at 50/80/100%%; with enforce, 429 past it (docs/PROXY.md, Budgets).")
  List<String> budgets = List.of();

  @Option(names = "--budget-default-output", paramLabel = "TOKENS", description = "Output tokens reserved for a request that names no max_tokens and whose model's context length is not known (default: 4096).")
  Integer budgetDefaultOutput;

  @Option(names = "--context-length", paramLabel = "GLOB=TOKENS", description = "Context length of the models matching GLOB: a request naming no max_tokens holds the context less its prompt in its budgets; repeatable, first match wins (default: what the upstream's /v1/models lists as max_model_len).")
  List<String> contextLengths = List.of();

  @Option(names = "--budget-sync", paramLabel = "DURATION|off", description = "How often budgets read the rest of the fleet's spend from the shared ledger (default: 1s; off: only at start; docs/PROXY.md, Budgets).")
  String budgetSync;

  @Option(names = "--proxy-id", paramLabel = "ID", description = "This proxy's name in the ledger's proxy_id column, unique among the proxies sharing it (default: HOST:PID).")
  String proxyId;

  @Option(names = "--alert-webhook", paramLabel = "URL", description = "POST each budget notice, SLO alert and drift notice as JSON to URL (retried with backoff).")
  String alertWebhook;

  @Option(names = "--baseline", paramLabel = "DIR", description = "A bench run's folder (its summary.json, and requests.jsonl when there): compare live input and output lengths, model mix and concurrency with it over --drift-window, and raise a drift notice (log, --alert-webhook, metrics) when they move away (docs/PROXY.md, Drift).")
  Path baseline;

  @Option(names = "--drift-window", paramLabel = "DURATION", description = "With --baseline: the rolling window of live traffic compared (default: 15m; at most the newest 5000 completed requests).")
  String driftWindow;

  @Option(names = "--admin-token", paramLabel = "TOKEN", description = "The token /dashboard asks for (16+ characters; Authorization: Bearer TOKEN or /dashboard?token=TOKEN). Needed to open the dashboard when --listen is not a loopback address.")
  String adminToken;

  @Option(names = "--otlp", paramLabel = "URL", description = "Also push the /metrics figures to an OpenTelemetry collector over OTLP/HTTP, e.g. http://127.0.0.1:4318 (/v1/metrics is added to a bare root).")
  String otlp;

  @Option(names = "--otlp-interval", paramLabel = "DURATION", description = "Time between OTLP pushes (default: 10s).")
  String otlpInterval = "10s";

  @Option(names = "--slo", paramLabel = "[SCOPE:]OBJECTIVES", description = "Live SLOs in the bench grammar, e.g. 'ttft.p99<=750ms,errors<=1%%', optionally scoped 'tenant=acme;model=llama*: tps.p10>=30'; repeatable. Burn-rate alerts (page, ticket) to the log, --alert-webhook and /metrics (docs/PROXY.md, SLOs and alerts).")
  List<String> slos = List.of();

  @Option(names = "--max-in-flight", paramLabel = "N|NAME=N", description = "Requests forwarded at once: N through the whole proxy (default: 4096), NAME=N to upstream NAME; repeatable. Past it a request waits (--queue-timeout), then gets 503 with Retry-After (docs/PROXY.md, At the edge).")
  List<String> maxInFlight = List.of();

  @Option(names = "--max-queued", paramLabel = "N", description = "Requests waiting for a slot, per limit (default: 1024); past it, 503 at once.")
  Integer maxQueued;

  @Option(names = "--queue-timeout", paramLabel = "DURATION", description = "The longest a request waits for a slot before its 503 (default: 10s).")
  String queueTimeout;

  @Option(names = "--max-connections", paramLabel = "N", description = "Client connections open at once (default: 10000); one more is answered 503 and closed.")
  Integer maxConnections;

  @Option(names = "--idle-timeout", paramLabel = "DURATION", description = "Close a client connection with no request in flight after this long without traffic (default: 5m).")
  String idleTimeout;

  @Option(names = "--tls-cert", paramLabel = "FILE", description = "Serve TLS on --listen with this PEM certificate chain (with --tls-key); reloaded when it changes.")
  Path tlsCert;

  @Option(names = "--tls-key", paramLabel = "FILE", description = "The PEM private key of --tls-cert (unencrypted PKCS#8, -----BEGIN PRIVATE KEY-----).")
  Path tlsKey;

  @Option(names = "--io-threads", paramLabel = "N", description = "Event loops (default: 1).")
  Integer ioThreads;

  @Option(names = "--record-threads", paramLabel = "N", description = "Threads that parse and count on the record path (default: 1).")
  Integer recordThreads;

  @Override
  public Integer call() {
    ProxySettings settings = settings();
    ProxyConfig cfg = settings.resolve(System.getenv());
    var otlpSettings = ExportOptions.otlp(otlp, otlpInterval); // checked before anything is opened
    DriftBaseline driftBaseline = baseline == null ? null : DriftOptions.baseline(baseline); // before the ledger opens
    java.time.Duration window = DriftOptions.window(driftWindow);
    Ledger ledger = openLedger(settings.ledger == null ? DEFAULT_LEDGER : settings.ledger);
    try {
      ProxyRun.serveUntilStopped(new ProxyRun.Parts(cfg, ledger, driftBaseline, window, otlpSettings, tokenCounters(),
          settings.proxyIdOrDefault()), Ticker.system(), InstantSource.system(), System.err);
    } catch (ProxyRun.CannotStart e) {
      throw new RunFailedException(e.getMessage());
    }
    return 0;
  }

  /** The flags, on top of the --config file when there is one. */
  ProxySettings settings() {
    ProxySettings flags = new ProxySettings();
    flags.listen = listen;
    for (String u : upstreams) {
      int eq = u.indexOf('=');
      boolean named = eq > 0 && !u.substring(0, eq).contains(":");
      flags.upstreams.add(named
          ? new ProxySettings.UpstreamSpec(u.substring(0, eq), u.substring(eq + 1), null)
          : new ProxySettings.UpstreamSpec(null, u, null));
    }
    for (String r : routes) {
      int eq = r.lastIndexOf('=');
      flags.routes.add(eq < 0
          ? new ProxySettings.RouteSpec(r, null)
          : new ProxySettings.RouteSpec(r.substring(0, eq), r.substring(eq + 1)));
    }
    flags.routeHeader = routeHeader;
    flags.conversationHeader = conversationHeader;
    if (traceCapture != null) {
      switch (traceCapture.strip().toLowerCase(java.util.Locale.ROOT)) {
        case "on" -> flags.traceCapture = true;
        case "off" -> flags.traceCapture = false;
        default -> throw new UsageException("--trace-capture " + traceCapture + ": give on or off");
      }
    }
    flags.balance = balance;
    flags.fluidTps = fluidTps;
    flags.tpsSeeds.putAll(tpsSeeds);
    flags.keysFile = keys == null ? null : keys.toString();
    flags.tenantHeader = tenantHeader;
    flags.unknownKeys = unknownKeys;
    flags.pricesFile = prices == null ? null : prices.toString();
    flags.caCert = caCert == null ? null : caCert.toString();
    flags.ioThreads = ioThreads;
    flags.recordThreads = recordThreads;
    flags.ledger = ledger;
    budgets.forEach(b -> flags.budgets.add(ProxySettings.BudgetSpec.flag(b)));
    flags.budgetDefaultOutput = budgetDefaultOutput;
    contextLengths.forEach(c -> ProxySettings.contextLengthFlag(c, flags));
    flags.budgetSyncMillis = budgetSync == null ? null
        : budgetSync.strip().equalsIgnoreCase("off") ? 0L : Durations.parseNanos("--budget-sync", budgetSync) / 1_000_000;
    flags.proxyId = proxyId;
    flags.alertWebhook = alertWebhook;
    flags.adminToken = adminToken;
    slos.forEach(o -> flags.slos.add(ProxySettings.SloSpec.flag(o)));
    maxInFlight.forEach(m -> ProxySettings.maxInFlightFlag(m, flags));
    flags.maxQueued = maxQueued;
    flags.maxConnections = maxConnections;
    flags.tlsCert = tlsCert == null ? null : tlsCert.toString();
    flags.tlsKey = tlsKey == null ? null : tlsKey.toString();
    flags.idleTimeoutMillis = idleTimeout == null ? null : Durations.parseNanos("--idle-timeout", idleTimeout) / 1_000_000;
    flags.queueTimeoutMillis = queueTimeout == null ? null : Durations.parseNanos("--queue-timeout", queueTimeout) / 1_000_000;
    return config == null ? flags : ProxySettings.read(config).overriddenBy(flags);
  }

  /** The ledger at {@code target}, migrated, or null for {@code none}; one that cannot be opened is one line. */
  static Ledger openLedger(String target) {
    if (target.equals("none")) {
      return null;
    }
    try {
      return Ledgers.open(target);
    } catch (LedgerException e) {
      throw new UsageException(e.getMessage() + " (--ledger FILE|URL|none)");
    }
  }

  /** Each model's tokenizer when tokenmeter knows it without a download, looked up once. */
  static TokenCounters tokenCounters() {
    TokenizerResolver resolver = TokenizerResolver.system();
    Map<String, Optional<OutputTokenCounter>> byModel = new ConcurrentHashMap<>();
    return model -> model == null
        ? null
        : byModel.computeIfAbsent(model, m -> {
              try {
                return resolver.forModel(m).map(t -> OutputTokenCounter.named(t.name(), t::count));
              } catch (TokenizerException e) {
                return Optional.empty(); // a broken map entry: count chunks rather than fail requests
              }
            }).orElse(null);
  }

  /** {@code tokenmeter proxy hash-key}: a keys-file entry for one API key. */
  @Command(
      name = "hash-key",
      mixinStandardHelpOptions = true,
      description = {
        "Reads one API key from standard input and prints its keys-file line, 'TENANT sha256:SALT:HASH'.",
        "A fresh random salt each time. The key is read from stdin so that it never appears in the shell history or the process list; it is neither stored nor printed."
      },
      footerHeading = "%nExamples:%n",
      footer = {
        "  tokenmeter proxy hash-key --tenant acme"
      })
  static final class HashKey implements Callable<Integer> {
    @Option(names = "--tenant", required = true, paramLabel = "NAME", description = "The tenant the key belongs to.")
    String tenant;

    @Override
    public Integer call() throws IOException {
      if (tenant.isBlank() || tenant.chars().anyMatch(Character::isWhitespace)) {
        throw new UsageException("--tenant must be one word without spaces, got '" + tenant + "'");
      }
      String key = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
      if (key == null || key.isBlank()) {
        throw new UsageException("no key on standard input; e.g. printf '%s\\n' \"$KEY\" | tokenmeter proxy hash-key --tenant "
            + tenant);
      }
      System.out.println(dev.tokenmeter.proxy.Tenants.hash(tenant, key.strip()).line());
      return 0;
    }
  }
}
