package dev.tokenmeter.simulator;

import dev.tokenmeter.core.time.Ticker;
import dev.tokenmeter.simulator.engine.BatchEngine;
import dev.tokenmeter.simulator.engine.BlockHashes;
import dev.tokenmeter.simulator.engine.EngineConfig;
import dev.tokenmeter.simulator.engine.Roofline;
import java.util.HashMap;
import java.util.Map;

/**
 * A {@link TimingModel} that runs the {@link BatchEngine} in real time: requests join the running
 * batch as they arrive, and every token is due at the end of the engine iteration that makes it.
 *
 * <pre>{@code
 * EngineTiming timing = new EngineTiming(
 *     EngineConfig.of(Presets.model("llama-3.1-8b"), Presets.gpu("h100-sxm")), Ticker.system());
 * SimServer server = SimServer.start(SimConfig.builder()
 *     .timing(timing).maxModelLen(timing.maxModelLen()).build());
 * }</pre>
 *
 * <pre>
 * design notes
 * - The engine's virtual time is the ticker's time. Each call first advances the engine to now:
 *   every iteration that starts by now is composed (from the requests that had arrived when it
 *   started) and its end time fixed, so the answers never change afterwards.
 * - A request is submitted when its first delay is asked, after the engine was advanced to its
 *   arrival: it joins the first iteration that starts after it arrived, as in a real engine.
 * - Token i's time is known once the iteration that makes it has started. Asked earlier (token 0
 *   while the prompt waits or prefills in chunks, a token of a preempted sequence), the answer is
 *   NOT_YET with a retry at the end of the iteration in flight, when the next one is composed.
 *   A decoding sequence asks for token i when token i − 1 is written, at or after the end of the
 *   iteration that made it, that is at or after the start of the next: one ask per token.
 * - Prefix caching: the request's stand-in token ids (PromptTokens.chatIds: 4 characters per
 *   token) are cut into the engine's blocks and hashed, so requests sharing a system prompt share
 *   its blocks, as vLLM's automatic prefix caching would with the real token ids.
 * - Requests whose prompt + output exceed the KV cache have their prompt cut to fit (the server's
 *   maxModelLen should refuse them first: see {@link #maxModelLen()}).
 * </pre>
 *
 * <p>Thread-safe: one lock around the engine (calls come from every event loop).
 */
public final class EngineTiming implements TimingModel {
  /**
   * The GPU energy buckets a server keeps: DCGM's series ask for the last second and the counter
   * since the start (a running total), so ten minutes is ample and keeps the meter under 8 MB.
   */
  static final long ENERGY_WINDOW_NANOS = 600_000_000_000L;

  /** Token times of one request, filled in as the engine composes iterations. */
  private static final class Track {
    final long[] tokenNanos;
    int known;
    long scheduledNanos = -1;
    int cachedPromptTokens;

    Track(int outputTokens) {
      this.tokenNanos = new long[outputTokens];
    }
  }

  private final BatchEngine engine;
  private final Ticker ticker;
  private final Map<Long, Track> tracks = new HashMap<>();

  /**
   * @throws IllegalArgumentException when the model does not fit on the GPUs
   */
  public EngineTiming(EngineConfig config, Ticker ticker) {
    this.ticker = ticker;
    this.engine = new BatchEngine(config, new BatchEngine.Listener() {
      @Override
      public void token(long id, int index, long atNanos) {
        onToken(id, index, atNanos);
      }

      @Override
      public void firstScheduled(long id, long atNanos, int cachedPromptTokens) {
        Track t = tracks.get(id);
        if (t != null) {
          t.scheduledNanos = atNanos;
          t.cachedPromptTokens = cachedPromptTokens;
        }
      }
    });
    if (engine.energy() != null) {
      engine.energy().startAt(ticker.nanos()); // idle energy counts from the server's start
      engine.energy().retain(ENERGY_WINDOW_NANOS); // a server runs for days: keep the recent buckets
    }
  }

  /**
   * The GPUs as DCGM would read them now, after the power model ({@link
   * dev.tokenmeter.simulator.engine.GpuPower}); null when the GPU preset has no power data.
   */
  public synchronized GpuNow gpuNow() {
    var meter = engine.energy();
    if (meter == null) {
      return null;
    }
    long now = ticker.nanos();
    engine.advanceTo(now);
    var last = meter.span(now - 1_000_000_000L, now); // DCGM's utilisation is over its sample period
    var c = engine.roofline().config();
    return new GpuNow(meter.gpus(), meter.wattsAt(now), meter.joulesAt(now) / meter.gpus(), last.busyShare(),
        last.computeShare(), last.memoryShare(), c.gpu().memoryBytes() * c.gpuMemoryUtilization() / (1 << 20),
        c.gpu().name());
  }

  /** Energy all GPUs drew over {@code [fromNanos, toNanos)} (ticker times), J; NaN without power data. */
  public synchronized double energyJoules(long fromNanos, long toNanos) {
    var meter = engine.energy();
    if (meter == null) {
      return Double.NaN;
    }
    engine.advanceTo(ticker.nanos());
    return meter.joulesAt(toNanos) - meter.joulesAt(fromNanos);
  }

  /**
   * The GPUs now, each alike.
   *
   * @param gpus GPUs of the deployment
   * @param watts each GPU's power now
   * @param joules each GPU's energy since the server started
   * @param busy share of the last second a kernel ran, 0..1
   * @param smActive share of it the tensor cores worked, 0..1
   * @param dramActive share of it memory streamed, 0..1
   * @param memoryUsedMib memory each GPU holds (the engine allocates its share up front, as vLLM does)
   * @param name the GPU's product name
   */
  public record GpuNow(int gpus, double watts, double joules, double busy, double smActive, double dramActive,
      double memoryUsedMib, String name) {}

  private void onToken(long id, int index, long atNanos) {
    Track t = tracks.get(id);
    if (t != null) {
      t.tokenNanos[index] = atNanos;
      t.known = index + 1;
    }
  }

  /** The cost model (KV capacity, iteration times) of this engine. */
  public Roofline roofline() {
    return engine.roofline();
  }

  /**
   * The longest prompt + {@code max_tokens} to accept: the model's context length, capped by the
   * KV cache (vLLM refuses to start when one full-length sequence does not fit).
   */
  public int maxModelLen() {
    long kv = engine.roofline().maxSequenceTokens();
    return (int) Math.min(engine.roofline().config().model().maxContextTokens(), kv);
  }

  @Override
  public synchronized long firstTokenDelayNanos(GenerationRequest r) {
    Track t = tracks.get(r.serverRequestId());
    if (t == null) {
      engine.advanceTo(r.arrivalNanos());
      long room = engine.roofline().maxSequenceTokens() - r.outputTokens();
      int prompt = (int) Math.max(1, Math.min(r.promptTokens(), room));
      t = new Track(r.outputTokens());
      tracks.put(r.serverRequestId(), t);
      int[] ids = r.promptIds();
      BlockHashes hashes =
          ids == null
              ? null
              : BlockHashes.ofTokens(ids, Math.min(ids.length, prompt), engine.roofline().config().blockTokens());
      engine.submit(r.serverRequestId(), prompt, r.outputTokens(), r.arrivalNanos(), hashes);
    }
    return answer(t, 0, r.arrivalNanos());
  }

  @Override
  public synchronized long interTokenDelayNanos(GenerationRequest r, int tokenIndex) {
    Track t = tracks.get(r.serverRequestId());
    if (t == null) {
      throw new IllegalStateException("token " + tokenIndex + " asked before token 0: " + r);
    }
    return answer(t, tokenIndex, t.tokenNanos[tokenIndex - 1]);
  }

  private long answer(Track t, int index, long baseNanos) {
    engine.advanceTo(ticker.nanos());
    if (t.known > index) {
      return Math.max(0, t.tokenNanos[index] - baseNanos);
    }
    return NOT_YET;
  }

  @Override
  public synchronized long retryAtNanos(GenerationRequest r) {
    // The request is waiting or mid-prefill, so the engine has work; its next composition point
    // is the end of the iteration in flight (or the arrival of an idle engine's first request).
    return engine.hasWork() ? engine.nextStartNanos() : ticker.nanos();
  }

  @Override
  public synchronized long scheduledNanos(GenerationRequest r) {
    Track t = tracks.get(r.serverRequestId());
    return t == null ? -1 : t.scheduledNanos;
  }

  @Override
  public boolean cachesPrefixes() {
    return true;
  }

  @Override
  public synchronized int cachedPromptTokens(GenerationRequest r) {
    Track t = tracks.get(r.serverRequestId());
    return t == null ? 0 : t.cachedPromptTokens;
  }

  @Override
  public synchronized void onFinish(GenerationRequest r) {
    if (tracks.remove(r.serverRequestId()) != null) {
      engine.cancel(r.serverRequestId());
    }
  }

  /** Sequences running in the engine now (after advancing it to now). */
  public synchronized int running() {
    engine.advanceTo(ticker.nanos());
    return engine.running();
  }

  /** Sequences waiting for admission now. */
  public synchronized int waiting() {
    engine.advanceTo(ticker.nanos());
    return engine.waiting();
  }

  /** KV-cache blocks in use now (after advancing the engine to now), fraction 0..1, as vLLM counts it. */
  public synchronized double kvCacheUsage() {
    engine.advanceTo(ticker.nanos());
    return 1 - (double) engine.freeBlocks() / engine.totalBlocks();
  }

  /** Prompt tokens looked up in the prefix cache so far (every admitted request's prompt, once). */
  public synchronized long prefixCacheQueries() {
    return engine.admittedPromptTokens();
  }

  /** Of {@link #prefixCacheQueries()}, the tokens found in it. */
  public synchronized long prefixCacheHits() {
    return engine.cachedPromptTokens();
  }

  /** Preemptions so far. */
  public synchronized long preemptions() {
    return engine.preemptions();
  }

  /**
   * Prefix-cache hit rate so far: prompt tokens served from the cache / prompt tokens, over every
   * request admitted (each counted at its first admission); 0 before the first.
   */
  public synchronized double prefixCacheHitRate() {
    long prompt = engine.admittedPromptTokens();
    return prompt == 0 ? 0 : (double) engine.cachedPromptTokens() / prompt;
  }
}
