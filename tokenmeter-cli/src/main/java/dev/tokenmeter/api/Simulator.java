package dev.tokenmeter.api;

import dev.tokenmeter.core.time.Ticker;
import dev.tokenmeter.simulator.EngineTiming;
import dev.tokenmeter.simulator.Faults;
import dev.tokenmeter.simulator.OutputLengths;
import dev.tokenmeter.simulator.Script;
import dev.tokenmeter.simulator.Scripted;
import dev.tokenmeter.simulator.SimConfig;
import dev.tokenmeter.simulator.SimServer;
import dev.tokenmeter.simulator.TimingModel;
import dev.tokenmeter.simulator.engine.EngineConfig;
import dev.tokenmeter.simulator.engine.Presets;
import dev.tokenmeter.simulator.engine.Roofline;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

/**
 * An LLM server for tests: tokenmeter's simulator started in-process on 127.0.0.1, speaking the
 * OpenAI, Anthropic, Gemini, Ollama and TGI wire formats byte for byte (streamed or not), with
 * real timing (a fixed TTFT and ITL, or a model/GPU preset's), injected faults and exact token
 * accounting. A test scripts its answers and reads back what it received.
 *
 * <pre>{@code
 * try (Simulator sim = Simulator.builder().api(Api.OPENAI).ttft(Duration.ofMillis(20)).start()) {
 *   sim.answer(Answer.text("Hello from the simulator"));
 *   sim.when(r -> r.lastUserText().contains("weather"), Answer.toolCall("get_weather", "{\"city\":\"Paris\"}"));
 *   sim.enqueue(Answer.rateLimited(Duration.ofSeconds(1)));   // the first request gets a 429
 *   OpenAiChatModel model = OpenAiChatModel.builder().baseUrl(sim.baseUrl()).apiKey("test").modelName(sim.model()).build();
 *   ...
 *   assertEquals(2, sim.received().size());
 * }
 * }</pre>
 *
 * <p>Which answer a request gets: the first {@link #enqueue queued} one (each used once), else
 * the first {@link #when rule} whose condition holds, else the {@link #answer default}, else the
 * simulator's own generated text (or a tool call when the request's tools ask for one).
 *
 * <p>Thread-safe. {@link #close()} stops the server; it is idempotent.
 */
public final class Simulator implements AutoCloseable {

  private final SimServer server;
  private final Api api;
  private final ConcurrentLinkedQueue<Answer> queued = new ConcurrentLinkedQueue<>();
  private final List<Rule> rules = new CopyOnWriteArrayList<>();
  private final List<ReceivedRequest> received = new CopyOnWriteArrayList<>();
  private volatile Answer fallback;

  private record Rule(Predicate<ReceivedRequest> condition, Answer answer) {}

  private Simulator(Builder b) {
    this.api = b.api;
    SimConfig.Builder config = SimConfig.builder().port(b.port).seed(b.seed).faults(b.faults).script(new Hook())
        .parallelToolCalls(OutputLengths.fixed(b.parallelToolCalls));
    String what;
    if (b.modelPreset != null) {
      EngineConfig engine = engine(b.modelPreset, b.gpuPreset, b.gpus);
      EngineTiming timing = new EngineTiming(engine, Ticker.system());
      config.timing(timing).maxModelLen(timing.maxModelLen());
      what = engine.model().name();
    } else {
      config.timing(TimingModel.fixed(b.ttft.toNanos(), b.itl.toNanos()));
      what = "tokenmeter-sim";
    }
    config.servedModelName(b.modelName != null ? b.modelName : what);
    this.server = bind(config.build(), b.port);
  }

  /** A builder: OpenAI, TTFT 50 ms, ITL 20 ms, no faults, a free port. */
  public static Builder builder() {
    return new Builder();
  }

  /** Starts a simulator with the defaults of {@link #builder()}. */
  public static Simulator start() {
    return builder().start();
  }

  /** {@code http://127.0.0.1:PORT}, no trailing slash. */
  public String url() {
    return server.baseUrl();
  }

  /**
   * The base URL the chosen API's client libraries take: {@code http://127.0.0.1:PORT/v1} for
   * OpenAI and Anthropic (LangChain4j's {@code baseUrl}), the bare {@link #url()} for the others.
   */
  public String baseUrl() {
    return url() + api.basePath();
  }

  /** The bound port. */
  public int port() {
    return server.port();
  }

  /** The API this simulator was started for (it serves all five; answers are checked against this one). */
  public Api api() {
    return api;
  }

  /** The model name it serves (requests naming another model get a 404, as from vLLM). */
  public String model() {
    return server.config().servedModelName();
  }

  /**
   * Answers every request not matched otherwise with {@code answer}; null returns to the
   * simulator's own text.
   *
   * @throws IllegalArgumentException when the chosen API cannot carry the answer
   */
  public Simulator answer(Answer answer) {
    if (answer != null) {
      check(answer);
    }
    fallback = answer;
    return this;
  }

  /**
   * Answers the requests for which {@code condition} holds with {@code answer}; rules are tried in
   * the order added. The condition sees the request with status and token counts still 0.
   */
  public Simulator when(Predicate<ReceivedRequest> condition, Answer answer) {
    check(Objects.requireNonNull(answer, "answer"));
    rules.add(new Rule(Objects.requireNonNull(condition, "condition"), answer));
    return this;
  }

  /** Answers the next requests, one each, with {@code answers} in order, before any rule. */
  public Simulator enqueue(Answer... answers) {
    for (Answer a : answers) {
      check(Objects.requireNonNull(a, "answer"));
    }
    queued.addAll(List.of(answers));
    return this;
  }

  /** Every generation request received so far, in the order answered. A copy. */
  public List<ReceivedRequest> received() {
    return List.copyOf(received);
  }

  /** Output tokens of every response so far, as their usage reported (errors count 0). */
  public long completionTokens() {
    return received.stream().mapToLong(ReceivedRequest::completionTokens).sum();
  }

  /** Prompt tokens of every request so far, as the responses' usage reported. */
  public long promptTokens() {
    return received.stream().mapToLong(ReceivedRequest::promptTokens).sum();
  }

  /** Forgets the scripted answers and the requests received (between tests of one class). */
  public void reset() {
    queued.clear();
    rules.clear();
    fallback = null;
    received.clear();
  }

  @Override
  public void close() {
    server.close();
  }

  @Override
  public String toString() {
    return "Simulator[" + api + " " + baseUrl() + ", model " + model() + "]";
  }

  private void check(Answer answer) {
    boolean servable = api.endpoints().stream().anyMatch(e -> answer.scripted().servableOn(e));
    if (!servable) {
      throw new IllegalArgumentException(answer + " cannot be served on the " + api + " API: tool calls travel on"
          + " OPENAI, ANTHROPIC and GEMINI, refusals on OPENAI; script Answer.text(...) instead, or start the simulator"
          + " with Simulator.builder().api(Api.OPENAI)");
    }
  }

  private static EngineConfig engine(String model, String gpu, int gpus) {
    EngineConfig engine;
    try {
      engine = EngineConfig.of(Presets.model(model), Presets.gpu(gpu)).withTensorParallel(gpus);
      new Roofline(engine); // fails now when the model does not fit
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Simulator preset " + model + " on " + gpus + " x " + gpu + ": "
          + e.getMessage() + " (`tokenmeter sim presets` lists them)", e);
    }
    return engine;
  }

  private static SimServer bind(SimConfig config, int port) {
    try {
      return SimServer.start(config);
    } catch (Exception e) { // Netty rethrows the bind failure's checked exception unchecked
      String message = String.valueOf(e.getMessage());
      if (e instanceof java.net.BindException || message.contains("in use")) {
        throw new IllegalStateException("Simulator: port " + port + " on 127.0.0.1 is in use; use port(0) for a"
            + " free port (then read sim.port()), or stop what holds it", e);
      }
      throw new IllegalStateException("Simulator: could not start on 127.0.0.1:" + port + ": " + message, e);
    }
  }

  /** Picks scripted answers and records what was received; runs on the simulator's event loops. */
  private final class Hook implements Script {
    @Override
    public Scripted answer(Incoming request) {
      Answer next = queued.poll();
      if (next != null) {
        return next.scripted();
      }
      if (!rules.isEmpty()) {
        ReceivedRequest seen = new ReceivedRequest(Api.of(request.api()), request.path(), request.body(), 0, 0, 0, false);
        for (Rule r : rules) {
          if (r.condition().test(seen)) {
            return r.answer().scripted();
          }
        }
      }
      Answer f = fallback;
      return f == null ? null : f.scripted();
    }

    @Override
    public void served(Served s) {
      Incoming r = s.request();
      received.add(new ReceivedRequest(Api.of(r.api()), r.path(), r.body(), s.status(), s.promptTokens(),
          s.completionTokens(), s.scripted()));
    }
  }

  /**
   * Options of a {@link Simulator}. Not thread-safe.
   *
   * <pre>{@code
   * Simulator sim = Simulator.builder().api(Api.ANTHROPIC).preset("llama-3.1-8b", "h100-sxm").faults("http_503=0.1").start();
   * }</pre>
   */
  public static final class Builder {
    private Api api = Api.OPENAI;
    private int port;
    private long seed = 42;
    private Duration ttft = Duration.ofMillis(50);
    private Duration itl = Duration.ofMillis(20);
    private String modelPreset;
    private String gpuPreset;
    private int gpus = 1;
    private String modelName;
    private Faults faults = Faults.none();
    private int parallelToolCalls = 1;

    private Builder() {}

    /** The API the test's client speaks (default OPENAI): sets {@link #baseUrl()} and which answers are allowed. */
    public Builder api(Api api) {
      this.api = Objects.requireNonNull(api, "api");
      return this;
    }

    /** TCP port on 127.0.0.1; 0 (the default) picks a free one. */
    public Builder port(int port) {
      if (port < 0 || port > 65_535) {
        throw new IllegalArgumentException("Simulator port " + port + " is not a TCP port: use 1-65535, or 0 for a free one");
      }
      this.port = port;
      return this;
    }

    /** Time to first token of every response (fixed timing; default 50 ms). */
    public Builder ttft(Duration ttft) {
      this.ttft = nonNegative(ttft, "ttft");
      this.modelPreset = null;
      return this;
    }

    /** Inter-token latency (fixed timing; default 20 ms, 50 tokens/s). */
    public Builder itl(Duration itl) {
      this.itl = nonNegative(itl, "itl");
      this.modelPreset = null;
      return this;
    }

    /**
     * Timing of a model on a GPU from the simulator's presets (continuous batching, the roofline;
     * docs/SIMULATOR.md), e.g. {@code preset("llama-3.1-8b", "h100-sxm")}, on one GPU.
     *
     * @throws IllegalArgumentException at {@link #start()}, naming the presets, for an unknown one
     */
    public Builder preset(String model, String gpu) {
      return preset(model, gpu, 1);
    }

    /** As {@link #preset(String, String)}, tensor-parallel over {@code gpus} GPUs. */
    public Builder preset(String model, String gpu, int gpus) {
      this.modelPreset = Objects.requireNonNull(model, "model");
      this.gpuPreset = Objects.requireNonNull(gpu, "gpu");
      this.gpus = gpus;
      return this;
    }

    /** The model name served and echoed (default: the preset's name, or {@code tokenmeter-sim}). */
    public Builder model(String name) {
      this.modelName = name;
      return this;
    }

    /** Seeds generated text, lengths and faults (default 42). */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /**
     * Random faults, as {@code sim serve --faults}: e.g. {@code http_429=0.05,disconnect=0.01}
     * (kinds: http_429, http_500, http_503, slow_headers, disconnect, stall, malformed_chunk, error_event).
     *
     * @throws IllegalArgumentException naming the wrong part
     */
    public Builder faults(String spec) {
      try {
        this.faults = Faults.parse(spec);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("Simulator faults: " + e.getMessage(), e);
      }
      return this;
    }

    /**
     * Tool calls in each answer the simulator makes itself when a request's tools ask for one
     * (default 1): {@code calls} parallel calls of the offered tools in turn, streamed one after
     * the other in the API's own form (OpenAI {@code tool_calls} entries by {@code index},
     * Anthropic {@code tool_use} blocks, Gemini {@code functionCall} parts, Responses {@code
     * function_call} items); one where the request forbids parallel calls. A scripted {@link
     * Answer#toolCall} stays one call.
     *
     * @throws IllegalArgumentException unless calls is 1 to 64
     */
    public Builder parallelToolCalls(int calls) {
      if (calls < 1 || calls > 64) {
        throw new IllegalArgumentException("Simulator parallelToolCalls must be 1-64, got " + calls);
      }
      this.parallelToolCalls = calls;
      return this;
    }

    /**
     * Starts the simulator; returns once it is bound.
     *
     * @throws IllegalArgumentException for an unknown preset
     * @throws IllegalStateException when the port is in use
     */
    public Simulator start() {
      return new Simulator(this);
    }

    private static Duration nonNegative(Duration d, String what) {
      if (d == null || d.isNegative()) {
        throw new IllegalArgumentException("Simulator " + what + " must be 0 or more, got " + d);
      }
      return d;
    }
  }
}
