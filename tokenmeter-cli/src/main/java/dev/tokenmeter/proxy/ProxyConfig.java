package dev.tokenmeter.proxy;

import dev.tokenmeter.governance.BudgetPlan;
import dev.tokenmeter.governance.LiveSlo;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Objects;

/**
 * Everything the proxy runs with, validated. Immutable.
 *
 * @param listen the address to bind (loopback unless the user named another)
 * @param routing the upstreams and how requests pick one
 * @param tenants how requests map to tenants
 * @param prices the price table ({@link Prices#none()} for none)
 * @param ioThreads event loops serving clients and upstreams (each client connection and its
 *     upstream connection share one)
 * @param recordThreads record-path threads
 * @param recordQueueCapacity events each record thread's queue holds before dropping
 * @param maxRequestBytes the largest request body accepted (413 above it)
 * @param budgets the tenants' budgets ({@link BudgetPlan#none()} for none)
 * @param adminTokenOrNull the token {@code /dashboard} asks for, or null for none (then the dashboard
 *     is open on a loopback listener and closed on any other; docs/PROXY.md, "Dashboard")
 * @param slos the live SLOs, one per objective (docs/PROXY.md, "SLOs and alerts"); empty for none
 * @param admission how many requests go through at once, and how long the others wait
 * @param tlsOrNull TLS on the listener, or null for plain HTTP
 * @param conversationHeaderOrNull a request header whose value is the conversation key the ledger
 *     records (it wins over the body's keys; docs/PROXY.md, "Conversations"), or null for none
 * @param promptCapture whether and how prompts are hashed for {@code proxy export-trace}
 *     ({@link PromptCapture}; docs/PROXY.md, "Capturing a trace")
 */
public record ProxyConfig(
    InetSocketAddress listen,
    Routing routing,
    Tenants tenants,
    Prices prices,
    int ioThreads,
    int recordThreads,
    int recordQueueCapacity,
    int maxRequestBytes,
    BudgetPlan budgets,
    String adminTokenOrNull,
    List<LiveSlo> slos,
    AdmissionLimits admission,
    ListenerTls tlsOrNull,
    String conversationHeaderOrNull,
    PromptCapture promptCapture) {

  /** 64 MiB: a long-context chat request with images inlined fits. */
  public static final int DEFAULT_MAX_REQUEST_BYTES = 64 << 20;

  /** 65,536 events per record thread: about 1 s of reads at 64k reads/s before any drop. */
  public static final int DEFAULT_RECORD_QUEUE = 65_536;

  public ProxyConfig {
    Objects.requireNonNull(listen, "listen");
    Objects.requireNonNull(routing, "routing");
    Objects.requireNonNull(tenants, "tenants");
    Objects.requireNonNull(prices, "prices");
    Objects.requireNonNull(budgets, "budgets");
    Objects.requireNonNull(admission, "admission");
    Objects.requireNonNull(promptCapture, "promptCapture");
    slos = List.copyOf(slos);
    if (!routing.upstreams().keySet().containsAll(admission.maxInFlightByUpstream().keySet())) {
      throw new IllegalArgumentException("in-flight limits name upstreams that are not configured: "
          + admission.maxInFlightByUpstream().keySet());
    }
    if (ioThreads < 1 || recordThreads < 1 || recordQueueCapacity < 1 || maxRequestBytes < 1) {
      throw new IllegalArgumentException("thread counts, queue capacity and body limit must be positive");
    }
  }

  /** A configuration without a conversation header. */
  public ProxyConfig(InetSocketAddress listen, Routing routing, Tenants tenants, Prices prices, int ioThreads,
      int recordThreads, int recordQueueCapacity, int maxRequestBytes, BudgetPlan budgets, String adminTokenOrNull,
      List<LiveSlo> slos, AdmissionLimits admission, ListenerTls tlsOrNull) {
    this(listen, routing, tenants, prices, ioThreads, recordThreads, recordQueueCapacity, maxRequestBytes, budgets,
        adminTokenOrNull, slos, admission, tlsOrNull, null, PromptCapture.randomKey(PromptCapture.DEFAULT_BLOCK_CHARS));
  }

  /** This configuration with a conversation header (null: none). */
  public ProxyConfig withConversationHeader(String headerOrNull) {
    return new ProxyConfig(listen, routing, tenants, prices, ioThreads, recordThreads, recordQueueCapacity, maxRequestBytes, budgets, adminTokenOrNull, slos, admission, tlsOrNull, headerOrNull, promptCapture);
  }

  /** This configuration with {@code capture} ({@link PromptCapture#OFF}: none). */
  public ProxyConfig withPromptCapture(PromptCapture capture) {
    return new ProxyConfig(listen, routing, tenants, prices, ioThreads, recordThreads, recordQueueCapacity, maxRequestBytes, budgets, adminTokenOrNull, slos, admission, tlsOrNull, conversationHeaderOrNull, capture);
  }

  /** A configuration with the default admission limits. */
  public ProxyConfig(InetSocketAddress listen, Routing routing, Tenants tenants, Prices prices, int ioThreads,
      int recordThreads, int recordQueueCapacity, int maxRequestBytes, BudgetPlan budgets, String adminTokenOrNull,
      List<LiveSlo> slos) {
    this(listen, routing, tenants, prices, ioThreads, recordThreads, recordQueueCapacity, maxRequestBytes, budgets,
        adminTokenOrNull, slos, AdmissionLimits.DEFAULT, null);
  }

  /** A configuration without an admin token or SLOs. */
  public ProxyConfig(InetSocketAddress listen, Routing routing, Tenants tenants, Prices prices, int ioThreads,
      int recordThreads, int recordQueueCapacity, int maxRequestBytes, BudgetPlan budgets) {
    this(listen, routing, tenants, prices, ioThreads, recordThreads, recordQueueCapacity, maxRequestBytes, budgets,
        null, List.of());
  }

  /** One upstream, loopback listener on {@code port}, anonymous tenants, no prices, defaults. */
  public static ProxyConfig of(int port, Upstream upstream) {
    return new ProxyConfig(
        new InetSocketAddress("127.0.0.1", port),
        Routing.single(upstream),
        Tenants.anonymous(),
        Prices.none(),
        1,
        1,
        DEFAULT_RECORD_QUEUE,
        DEFAULT_MAX_REQUEST_BYTES,
        BudgetPlan.none(),
        null,
        List.of(),
        AdmissionLimits.DEFAULT,
        null);
  }

  /** This configuration with other tenants. */
  public ProxyConfig withTenants(Tenants t) {
    return new ProxyConfig(listen, routing, t, prices, ioThreads, recordThreads, recordQueueCapacity, maxRequestBytes, budgets, adminTokenOrNull, slos, admission, tlsOrNull, conversationHeaderOrNull, promptCapture);
  }

  /** This configuration with other prices. */
  public ProxyConfig withPrices(Prices p) {
    return new ProxyConfig(listen, routing, tenants, p, ioThreads, recordThreads, recordQueueCapacity, maxRequestBytes, budgets, adminTokenOrNull, slos, admission, tlsOrNull, conversationHeaderOrNull, promptCapture);
  }

  /** This configuration with other routing. */
  public ProxyConfig withRouting(Routing r) {
    return new ProxyConfig(listen, r, tenants, prices, ioThreads, recordThreads, recordQueueCapacity, maxRequestBytes, budgets, adminTokenOrNull, slos, admission, tlsOrNull, conversationHeaderOrNull, promptCapture);
  }

  /** This configuration with other budgets. */
  public ProxyConfig withBudgets(BudgetPlan b) {
    return new ProxyConfig(listen, routing, tenants, prices, ioThreads, recordThreads, recordQueueCapacity, maxRequestBytes, b, adminTokenOrNull, slos, admission, tlsOrNull, conversationHeaderOrNull, promptCapture);
  }

  /** This configuration with other SLOs. */
  public ProxyConfig withSlos(List<LiveSlo> s) {
    return new ProxyConfig(listen, routing, tenants, prices, ioThreads, recordThreads, recordQueueCapacity, maxRequestBytes, budgets, adminTokenOrNull, s, admission, tlsOrNull, conversationHeaderOrNull, promptCapture);
  }

  /** This configuration with record queues of {@code capacity} events. */
  public ProxyConfig withRecordQueue(int capacity) {
    return new ProxyConfig(listen, routing, tenants, prices, ioThreads, recordThreads, capacity, maxRequestBytes, budgets, adminTokenOrNull, slos, admission, tlsOrNull, conversationHeaderOrNull, promptCapture);
  }

  /** This configuration with the dashboard's admin token (null for none). */
  public ProxyConfig withAdminToken(String tokenOrNull) {
    return new ProxyConfig(listen, routing, tenants, prices, ioThreads, recordThreads, recordQueueCapacity, maxRequestBytes, budgets, tokenOrNull, slos, admission, tlsOrNull, conversationHeaderOrNull, promptCapture);
  }

  /** This configuration with other admission limits. */
  public ProxyConfig withAdmission(AdmissionLimits a) {
    return new ProxyConfig(listen, routing, tenants, prices, ioThreads, recordThreads, recordQueueCapacity, maxRequestBytes, budgets, adminTokenOrNull, slos, a, tlsOrNull, conversationHeaderOrNull, promptCapture);
  }

  /** This configuration with a request body limit of {@code bytes}. */
  public ProxyConfig withMaxRequestBytes(int bytes) {
    return new ProxyConfig(listen, routing, tenants, prices, ioThreads, recordThreads, recordQueueCapacity, bytes, budgets, adminTokenOrNull, slos, admission, tlsOrNull, conversationHeaderOrNull, promptCapture);
  }

  /** This configuration with TLS on the listener (null: plain HTTP). */
  public ProxyConfig withTls(ListenerTls tls) {
    return new ProxyConfig(listen, routing, tenants, prices, ioThreads, recordThreads, recordQueueCapacity, maxRequestBytes, budgets, adminTokenOrNull, slos, admission, tls, conversationHeaderOrNull, promptCapture);
  }
}
