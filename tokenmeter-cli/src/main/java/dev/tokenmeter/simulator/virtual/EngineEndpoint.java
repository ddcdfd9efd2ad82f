package dev.tokenmeter.simulator.virtual;

import dev.tokenmeter.core.loadgen.Endpoint;
import dev.tokenmeter.core.loadgen.Exchange;
import dev.tokenmeter.core.loadgen.ExchangeListener;
import dev.tokenmeter.core.loadgen.Loop;
import dev.tokenmeter.core.request.Message;
import dev.tokenmeter.core.request.Outcome;
import dev.tokenmeter.core.request.Prompt;
import dev.tokenmeter.core.request.RequestSpec;
import dev.tokenmeter.core.request.StreamItem;
import dev.tokenmeter.core.request.TextKind;
import dev.tokenmeter.core.request.ToolSpec;
import dev.tokenmeter.simulator.PromptTokens;
import dev.tokenmeter.simulator.engine.BatchEngine;
import dev.tokenmeter.simulator.engine.BlockHashes;
import dev.tokenmeter.simulator.engine.DisaggregatedEngine;
import dev.tokenmeter.simulator.engine.EngineConfig;
import dev.tokenmeter.simulator.engine.Roofline;
import dev.tokenmeter.simulator.engine.Variation;
import io.netty.util.collection.LongObjectHashMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * An {@link Endpoint} answered by the {@link BatchEngine} directly, in virtual time: no sockets,
 * no JSON. Each request is submitted to the engine when it starts; each token the engine emits
 * arrives as one {@link StreamItem.Text} at the end of the iteration that made it, and the last
 * one is followed, at the same instant, by {@code Finish("length")}, {@code Usage} and {@code
 * Done}, as a vLLM stream with {@code ignore_eos} and {@code include_usage} would end.
 *
 * <pre>
 * design notes
 * - One loop task per engine iteration, not per token: an iteration is composed (engine.step())
 *   when it starts, from the requests submitted by then; its tokens are delivered by one task at
 *   its end, after which the next iteration is composed by a task queued behind everything else
 *   due at that instant. A closed-loop user whose request ended there submits its next one in the
 *   delivery task, so it joins that next iteration, as it would in a real engine.
 * - Output length is max_tokens exactly (ignore_eos semantics); prompt length is the workload's
 *   promptTokens (at least 1). A request asking no max_tokens gets {@code defaultMaxTokens}.
 * - Prompt + max_tokens over the context length (the model's, capped by the KV cache) is refused
 *   with HTTP 400, 1 ms after the send, as vLLM refuses it.
 * - Sent and headers are at the start: the network takes no time. TTFT is queueing + prefill.
 * - Prefix caching: a prompt with text is identified by the stand-in token ids sim serve uses
 *   (PromptTokens: 4 characters a token), so prompt files sharing a system prompt share its
 *   blocks; a prompt without text (synthetic lengths) is the workload's shared prefix of
 *   sharedPrefixTokens tokens, then content of its own.
 * - Disaggregated prefill/decode (DisaggregatedEngine): one loop task per instant something
 *   happens in either pool (an iteration ends, a transfer lands): its tokens arrive then, and the
 *   iterations and handoffs due then are started by a task queued behind everything else due at
 *   that instant, as above.
 * - Aborting (timeout, cancel) removes the sequence from the engine at once, freeing its KV cache;
 *   tokens of it already composed into the iteration in flight are dropped.
 * </pre>
 *
 * <p>Not thread-safe: confine it, with its {@link VirtualLoop}, to one thread.
 */
public final class EngineEndpoint implements Endpoint {
  /** Every generated token reads the same; only its time and count matter here. */
  private static final StreamItem.Text TOKEN = new StreamItem.Text(" tok", TextKind.CONTENT);

  private static final StreamItem.Finish LENGTH = new StreamItem.Finish("length");
  private static final StreamItem.Finish TOOL_CALLS = new StreamItem.Finish("tool_calls");
  private static final StreamItem.Done DONE = new StreamItem.Done();
  private static final Outcome COMPLETED = new Outcome.Completed("length");

  /** A refused request's response arrives this long after its send (a validation round trip). */
  static final long REFUSAL_NANOS = 1_000_000L; // 1 ms

  /** Identifies the workload's one shared prefix among cached blocks. */
  private static final long SHARED_PREFIX_KEY = 0x5EED_F1E1DL;

  private final VirtualLoop loop;
  /** The one engine; null when the pools are disaggregated. */
  private final BatchEngine engine;
  /** The prefill and decode pools; null for one engine. */
  private final DisaggregatedEngine disagg;
  /** When the disaggregated pools' next event is due (Long.MAX_VALUE: none asked for). */
  private long wakeAtNanos = Long.MAX_VALUE;
  private final int maxModelLen;
  private final int defaultMaxTokens;
  /** Tool calls per tool-calling answer ({@link #parallelToolCalls(int)}). */
  private int parallelToolCalls = 1;
  private final int sharedPrefixTokens;
  private final int blockTokens;
  /**
   * Streams by engine id. A map keyed by primitive longs: every token is looked up here, and a
   * {@code HashMap<Long, ...>} boxed each id past 127 (36% of the bytes a simulation allocated).
   */
  private final LongObjectHashMap<Stream> streams = new LongObjectHashMap<>();
  private long nextEngineId;
  private final Variation.Draws arrivalDelays;

  // Tokens of the iteration in flight, in the engine's emission order.
  private long[] pendingIds = new long[256];
  private int[] pendingIndexes = new int[256];
  private int pendingCount;
  private boolean iterationInFlight;
  private boolean composeQueued;
  private long requestsStarted;
  private long requestsCompleted;

  /**
   * @param config the deployment simulated
   * @param loop the virtual loop and clock everything runs on
   * @param defaultMaxTokens output length of a request that sets no max_tokens, ≥ 1
   * @param sharedPrefixTokens tokens every prompt without text starts with, the same in all (the
   *     workload's shared prefix); 0 for none
   * @throws IllegalArgumentException when the model does not fit on the GPUs
   */
  public EngineEndpoint(
      EngineConfig config, VirtualLoop loop, int defaultMaxTokens, int sharedPrefixTokens) {
    this(config, loop, defaultMaxTokens, sharedPrefixTokens, Variation.NONE);
  }

  /**
   * An endpoint whose engine varies as {@code variation} says: iteration times scattered, and each
   * request reaching the scheduler up to its arrival jitter after the send (the response's
   * headers leave at the send; its first token waits for the scheduler).
   */
  public EngineEndpoint(
      EngineConfig config,
      VirtualLoop loop,
      int defaultMaxTokens,
      int sharedPrefixTokens,
      Variation variation) {
    this(config, null, loop, defaultMaxTokens, sharedPrefixTokens, variation);
  }

  /**
   * An endpoint served by disaggregated prefill and decode pools ({@code pools}; null: by one
   * engine of {@code config}). With pools, {@code config} is the decode pool's.
   */
  public EngineEndpoint(
      EngineConfig config,
      DisaggregatedEngine.Pools pools,
      VirtualLoop loop,
      int defaultMaxTokens,
      int sharedPrefixTokens,
      Variation variation) {
    if (defaultMaxTokens < 1 || sharedPrefixTokens < 0) {
      throw new IllegalArgumentException(
          "need defaultMaxTokens >= 1 and sharedPrefixTokens >= 0, got " + defaultMaxTokens + ", "
              + sharedPrefixTokens);
    }
    this.sharedPrefixTokens = sharedPrefixTokens;
    this.blockTokens = config.blockTokens();
    this.loop = loop;
    BatchEngine.Listener events =
            new BatchEngine.Listener() {
              @Override
              public void token(long id, int index, long atNanos) {
                onToken(id, index, atNanos);
              }

              @Override
              public void firstScheduled(long id, long atNanos, int cachedPromptTokens) {
                Stream s = streams.get(id);
                if (s != null) {
                  s.cachedTokens = cachedPromptTokens;
                }
              }
            };
    this.engine = pools == null ? new BatchEngine(config, events, variation) : null;
    this.disagg = pools == null ? null : new DisaggregatedEngine(pools, events, variation);
    this.arrivalDelays = variation.arrivalDelays();
    this.defaultMaxTokens = defaultMaxTokens;
    long kv = engine != null ? engine.roofline().maxSequenceTokens() : disagg.maxContextTokens();
    this.maxModelLen = (int) Math.min(config.model().maxContextTokens(), kv);
  }

  /** The cost model (KV capacity, iteration times) of the simulated engine (the decode pool's). */
  public Roofline roofline() {
    return engine != null ? engine.roofline() : disagg.decode().roofline();
  }

  /** The disaggregated prefill and decode pools; null for one engine. */
  public DisaggregatedEngine disaggregated() {
    return disagg;
  }

  /** The longest prompt + max_tokens accepted: the model's context, capped by the KV cache. */
  public int maxModelLen() {
    return maxModelLen;
  }

  /** Engine iterations run so far. */
  public long iterations() {
    return engine != null ? engine.iterations()
        : disagg.prefill().iterations() + disagg.decode().iterations();
  }

  /** The GPUs' energy meter (virtual time); null when the GPU preset has no power data. */
  public dev.tokenmeter.simulator.engine.EnergyMeter energy() {
    return engine != null ? engine.energy() : null; // not metered across two pools yet
  }

  /** Where the engine's iteration time went, so far. */
  public dev.tokenmeter.simulator.engine.CostTotals costs() {
    return engine != null ? engine.costs() : disagg.prefill().costs().plus(disagg.decode().costs());
  }

  /** Preemptions so far (a sequence's KV cache dropped for lack of room, recomputed later). */
  public long preemptions() {
    return engine != null ? engine.preemptions()
        : disagg.prefill().preemptions() + disagg.decode().preemptions();
  }

  /**
   * Prefix-cache hit rate so far: prompt tokens served from the cache / prompt tokens, over every
   * request admitted (each counted at its first admission); 0 before the first.
   */
  public double prefixCacheHitRate() {
    BatchEngine e = engine != null ? engine : disagg.prefill();
    long prompt = e.admittedPromptTokens();
    return prompt == 0 ? 0 : (double) e.cachedPromptTokens() / prompt;
  }

  /** Requests started so far, refused ones included. */
  public long requestsStarted() {
    return requestsStarted;
  }

  /** Requests that received every token so far. */
  public long requestsCompleted() {
    return requestsCompleted;
  }

  /**
   * True when no iteration is in flight or due, the engine holds no sequence and no request is on
   * its way to it.
   */
  public boolean idle() {
    boolean work = engine != null ? engine.hasWork() : disagg.hasWork();
    return !iterationInFlight && !composeQueued && !work && streams.isEmpty();
  }

  @Override
  public Loop loop() {
    return loop;
  }

  @Override
  public Exchange start(RequestSpec spec, ExchangeListener listener) {
    long now = loop.nanos();
    requestsStarted++;
    int prompt = Math.max(1, spec.promptTokens());
    int output = spec.maxTokens().orElse(defaultMaxTokens);
    List<ToolSpec> tools = toolsToCall(spec.prompt(), parallelToolCalls);
    List<String> arguments = null;
    int[] starts = null;
    if (tools != null) {
      arguments = new ArrayList<>();
      starts = new int[tools.size()];
      for (int i = 0; i < starts.length; i++) {
        starts[i] = arguments.size();
        arguments.addAll(dev.tokenmeter.simulator.ToolArguments.pieces(tools.get(i).parametersJson()));
      }
      if (output >= 1) {
        output = Math.min(output, arguments.size()); // the calls' arguments are the answer, cut at max_tokens
      }
    }
    Stream s = new Stream(nextEngineId++, prompt, output, listener);
    if (arguments != null) {
      s.tools = tools;
      s.starts = starts;
      s.arguments = arguments;
    }
    listener.sent(now);
    if (output < 1 || (long) prompt + output > maxModelLen) {
      String body =
          "{\"error\":{\"message\":\"This model's maximum context length is " + maxModelLen
              + " tokens. However, you requested " + ((long) prompt + output) + " tokens ("
              + prompt + " in the messages, " + output + " in the completion).\","
              + "\"type\":\"BadRequestError\",\"param\":null,\"code\":400}}";
      listener.headers(400, now);
      // Later, not inside start() (the caller has not got its Exchange back yet), and not at the
      // same instant: a closed-loop user would otherwise retry forever without time passing.
      loop.schedule(() -> s.end(new Outcome.HttpError(400, body)), REFUSAL_NANOS);
      return s;
    }
    listener.headers(200, now);
    streams.put(s.engineId, s);
    BlockHashes hashes = hashes(spec.prompt(), prompt, s.engineId);
    long delay = arrivalDelays.delayNanos();
    if (delay == 0) {
      arrive(s, hashes);
    } else {
      loop.schedule(() -> arrive(s, hashes), delay);
    }
    return s;
  }

  /**
   * The tool a request's answer calls, as sim serve decides with {@code tool_choice} auto
   * (docs/SIM-SERVE.md, "Tool calls in `sim serve`"): the first tool offered, unless the last message is a tool
   * result, which is answered in text; null for a request without tools.
   */
  static ToolSpec toolToCall(Prompt p) {
    List<ToolSpec> tools = toolsToCall(p, 1);
    return tools == null ? null : tools.get(0);
  }

  /**
   * The tools an answer calls when it makes {@code k} parallel calls ({@link #parallelToolCalls}):
   * the offered tools in turn (call i of tool i mod n), as sim serve's {@code --parallel-tool-calls};
   * null when {@link #toolToCall} answers in text.
   */
  static List<ToolSpec> toolsToCall(Prompt p, int k) {
    if (!(p instanceof Prompt.Chat c) || c.tools().isEmpty()) {
      return null;
    }
    List<Message> m = c.messages();
    if (!m.isEmpty() && "tool".equals(m.get(m.size() - 1).role())) {
      return null;
    }
    List<ToolSpec> out = new ArrayList<>(k);
    for (int i = 0; i < k; i++) {
      out.add(c.tools().get(i % c.tools().size()));
    }
    return out;
  }

  /**
   * Tool calls in each answer that calls tools, 1 to 64 (default 1): {@code simulate --profile
   * agent --parallel-tool-calls N}. Confined to the loop, like every other call.
   */
  public void parallelToolCalls(int calls) {
    if (calls < 1 || calls > 64) {
      throw new IllegalArgumentException("parallel tool calls must be 1-64, got " + calls);
    }
    this.parallelToolCalls = calls;
  }

  /** The request reaches the scheduler now, unless it was cancelled on the way. */
  private void arrive(Stream s, BlockHashes hashes) {
    if (streams.get(s.engineId) != s) {
      return;
    }
    if (disagg != null) {
      disagg.submit(s.engineId, s.promptTokens, s.outputTokens, loop.nanos(), hashes);
    } else {
      engine.submit(s.engineId, s.promptTokens, s.outputTokens, loop.nanos(), hashes);
    }
    queueCompose();
  }

  /** The prompt's content identity for the prefix cache; null when it shares nothing. */
  private BlockHashes hashes(Prompt p, int promptTokens, long engineId) {
    int[] ids =
        switch (p) {
          case Prompt.Text t -> t.text().isEmpty() ? null : PromptTokens.textIds(t.text());
          case Prompt.Infill f -> PromptTokens.textIds(f.prefix() + f.suffix());
          case Prompt.Chat c ->
              PromptTokens.chatIds(
                  c.messages().stream().map(Message::role).toList(),
                  c.messages().stream().map(Message::content).toList());
        };
    if (ids != null) {
      return BlockHashes.ofTokens(ids, Math.min(ids.length, promptTokens), blockTokens);
    }
    if (sharedPrefixTokens > 0) {
      return BlockHashes.sharedPrefix(
          SHARED_PREFIX_KEY, sharedPrefixTokens, engineId, promptTokens, blockTokens);
    }
    return null;
  }

  /** Nothing to close: no sockets. */
  @Override
  public void close() {}

  private void queueCompose() {
    if (!iterationInFlight && !composeQueued) {
      composeQueued = true;
      loop.execute(disagg != null ? this::startDue : this::compose);
    }
  }

  /** Disaggregated: starts the handoffs and iterations due now, then waits for the next event. */
  private void startDue() {
    composeQueued = false;
    disagg.startDue(loop.nanos());
    wakeForNext();
  }

  private void wakeForNext() {
    if (!disagg.hasWork()) {
      return;
    }
    long next = disagg.nextEventNanos();
    if (next == Long.MAX_VALUE || next >= wakeAtNanos) {
      return; // nothing due, or a wake at or before it is already queued
    }
    wakeAtNanos = next;
    loop.schedule(() -> finishDue(next), Math.max(0, next - loop.nanos()));
  }

  /** Disaggregated: what ends now (iterations, transfers) delivers its tokens; starts queue behind. */
  private void finishDue(long due) {
    if (wakeAtNanos != due) {
      return; // superseded by an earlier wake that has run since
    }
    wakeAtNanos = Long.MAX_VALUE;
    disagg.finishDue(loop.nanos());
    long now = loop.nanos();
    int n = pendingCount;
    pendingCount = 0;
    for (int i = 0; i < n; i++) {
      Stream s = streams.get(pendingIds[i]);
      if (s != null) {
        s.token(pendingIndexes[i], now);
      }
    }
    queueCompose();
  }

  /** Starts the next iteration now: its tokens are known now and delivered at its end. */
  private void compose() {
    composeQueued = false;
    if (iterationInFlight || !engine.hasWork()) {
      return;
    }
    long now = loop.nanos();
    long start = engine.nextStartNanos();
    if (start > now) {
      composeQueued = true;
      loop.schedule(this::compose, start - now);
      return;
    }
    BatchEngine.Iteration it = engine.step();
    iterationInFlight = true;
    loop.schedule(this::deliver, it.endNanos() - now);
  }

  private void onToken(long engineId, int index, long atNanos) {
    if (pendingCount == pendingIds.length) {
      pendingIds = Arrays.copyOf(pendingIds, pendingCount * 2);
      pendingIndexes = Arrays.copyOf(pendingIndexes, pendingCount * 2);
    }
    pendingIds[pendingCount] = engineId;
    pendingIndexes[pendingCount] = index;
    pendingCount++;
  }

  /** The iteration in flight ended: its tokens arrive now, then the next one is composed. */
  private void deliver() {
    long now = loop.nanos();
    int n = pendingCount;
    pendingCount = 0;
    iterationInFlight = false;
    for (int i = 0; i < n; i++) {
      Stream s = streams.get(pendingIds[i]);
      if (s != null) {
        s.token(pendingIndexes[i], now);
      }
    }
    queueCompose();
  }

  /** One request's stream, and its {@link Exchange}. */
  private final class Stream implements Exchange {
    final long engineId;
    final int promptTokens;
    final int outputTokens;
    final ExchangeListener listener;
    /** Prompt tokens the prefix cache served when the engine first scheduled it (usage's cached). */
    int cachedTokens;
    boolean ended;
    /** The tools its answer calls, in order, or null for a text answer. */
    List<ToolSpec> tools;
    /** The output token at which each call's arguments begin. */
    int[] starts;
    /** The calls' arguments, call after call, one piece per output token. */
    List<String> arguments;
    /** Calls started so far. */
    int callsStarted;

    Stream(long engineId, int promptTokens, int outputTokens, ExchangeListener listener) {
      this.engineId = engineId;
      this.promptTokens = promptTokens;
      this.outputTokens = outputTokens;
      this.listener = listener;
    }

    void token(int index, long now) {
      if (tools == null) {
        listener.item(TOKEN, now);
      } else {
        while (callsStarted < starts.length && index >= starts[callsStarted]) {
          int c = callsStarted++;
          listener.item(new StreamItem.ToolCallStart("call_" + engineId + (c == 0 ? "" : "_" + c), tools.get(c).name(),
              c), now);
        }
        listener.item(new StreamItem.Text(arguments.get(index), TextKind.TOOL_CALL), now);
      }
      if (index == outputTokens - 1) {
        listener.item(tools == null || outputTokens < arguments.size() ? LENGTH : TOOL_CALLS, now);
        listener.item(new StreamItem.Usage(promptTokens, outputTokens, -1, cachedTokens), now);
        listener.item(DONE, now);
        streams.remove(engineId); // the engine already let the sequence go
        requestsCompleted++;
        end(COMPLETED);
      }
    }

    void end(Outcome outcome) {
      if (!ended) {
        ended = true;
        listener.end(outcome, loop.nanos());
      }
    }

    @Override
    public void abort(Outcome outcome) {
      if (ended) {
        return;
      }
      if (streams.remove(engineId) != null) {
        if (disagg != null) {
          disagg.cancel(engineId);
        } else {
          engine.cancel(engineId);
        }
      }
      end(outcome);
    }
  }
}
