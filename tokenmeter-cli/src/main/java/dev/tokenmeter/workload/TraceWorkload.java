package dev.tokenmeter.workload;

import dev.tokenmeter.core.loadgen.RequestSource;
import dev.tokenmeter.core.request.Prompt;
import dev.tokenmeter.core.request.RequestSpec;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * The requests of a trace: request {@code id} is record {@code id}, its prompt exactly the
 * record's input length (with an exact estimator) and {@code max_tokens} its output length.
 *
 * <pre>
 * design notes
 * - Prefix sharing as the trace has it: a record's prompt is the text of one fixed block per hash
 *   id, in order (the same id always gives the same text: synthesized from a random seeded by the
 *   run's seed and the id, blockTokens tokens of it), then text of its own when the hash ids cover
 *   fewer tokens than the input, the whole cut or padded to the exact length at its end
 *   (PromptSynthesizer.fit keeps the blocks that fit whole byte for byte). Two records whose hash
 *   ids agree on their first k ids therefore send the same first k blocks' bytes.
 * - Each block's text starts with a space and a word, so a BPE pre-tokenizer splits at every block
 *   boundary and the shared bytes are shared tokens too; a block of blockTokens tokens alone may
 *   count one more or less inside the whole, which the cut at the end absorbs.
 * - Block texts and their counts are cached (at most CACHED_BLOCKS, least recently used out):
 *   Mooncake's traces reuse a few hot blocks (system prompts, documents) across many requests, and
 *   a prompt's whole blocks are then counted by sum, its full text once (see prompt()).
 * </pre>
 *
 * <p>Thread-safe: the cache is synchronized and every draw is seeded by {@code (seed, id)}.
 */
public final class TraceWorkload implements RequestSource {
  static final long BLOCK_STREAM = 10;
  static final long TAIL_STREAM = 11;
  static final long FILL_STREAM = 12;
  static final long WARMUP_STREAM = 13;
  static final int CACHED_BLOCKS = 4096;

  private final List<Trace.Record> records;
  private final int blockTokens;
  private final long seed;
  private final PromptSynthesizer synthesizer;
  private final Map<Long, Block> blocks = new LinkedHashMap<>(256, 0.75f, true) {
    private static final long serialVersionUID = 1L;

    @Override
    protected boolean removeEldestEntry(Map.Entry<Long, Block> eldest) {
      return size() > CACHED_BLOCKS;
    }
  };

  /** The records of {@code trace}, prompts sized by {@code synthesizer}'s estimator. */
  public TraceWorkload(Trace trace, long seed, PromptSynthesizer synthesizer) {
    this(trace.records(), trace.blockTokens(), seed, synthesizer);
  }

  public TraceWorkload(List<Trace.Record> records, int blockTokens, long seed, PromptSynthesizer synthesizer) {
    this.records = List.copyOf(records);
    this.blockTokens = blockTokens;
    this.seed = seed;
    this.synthesizer = Objects.requireNonNull(synthesizer, "synthesizer");
  }

  /** Records in the replay. */
  public int size() {
    return records.size();
  }

  @Override
  public RequestSpec next(long id) {
    if (id < 0 || id >= records.size()) {
      throw new IllegalStateException("trace replay asked for request " + id + " of " + records.size());
    }
    Trace.Record r = records.get((int) id);
    PromptSynthesizer.Synthesized p = prompt(r, id);
    return new RequestSpec(id, new Prompt.Text(p.text()), p.tokens(), p.exact(), OptionalInt.of(r.outputTokens()));
  }

  /**
   * The prompt of record {@code r}, the {@code index}th of the replay. The whole blocks are counted
   * from their cached counts and only the rest (a partial block, text of the record's own) is cut or
   * padded, then the whole is counted once to check; a boundary that merged tokens (the count is
   * not the sum) falls back to fitting the whole text. So a 120k-token prompt costs one full count,
   * not one per step of the cut's search.
   */
  PromptSynthesizer.Synthesized prompt(Trace.Record r, long index) {
    int in = r.inputTokens();
    long[] ids = r.hashIds();
    if (ids.length == 0) {
      return synthesizer.text(in, Draws.forItem(seed, TAIL_STREAM, index));
    }
    int named = (int) Math.min(ids.length, (in + (long) blockTokens - 1) / blockTokens);
    int whole = Math.min(named, in / blockTokens);
    StringBuilder kept = new StringBuilder((int) Math.min(1 << 26, 6L * in + 64));
    long keptTokens = 0;
    for (int b = 0; b < whole; b++) {
      Block block = block(ids[b]);
      kept.append(block.text);
      keptTokens += block.tokens;
    }
    StringBuilder rest = new StringBuilder();
    if (named > whole) {
      rest.append(block(ids[whole]).text);
    }
    long covered = (long) named * blockTokens;
    if (covered < in) {
      rest.append(' ').append(synthesizer.text((int) (in - covered), Draws.forItem(seed, TAIL_STREAM, index)).text());
    }
    if (keptTokens < in) {
      PromptSynthesizer.Synthesized tail =
          synthesizer.fit(rest.toString(), 0, (int) (in - keptTokens), Draws.forItem(seed, FILL_STREAM, index));
      String text = kept + tail.text();
      int counted = synthesizer.estimator().count(text);
      if (counted == in) {
        return new PromptSynthesizer.Synthesized(text, counted, synthesizer.estimator().exact());
      }
    }
    return synthesizer.fit(kept.append(rest).toString(), 0, in, Draws.forItem(seed, FILL_STREAM, index));
  }

  /**
   * The records as the virtual-time simulator reads them: each prompt is {@code 4 × inputTokens}
   * code points, 4 per token (the simulator's stand-in token is the hash of 4 code points, {@code
   * simulator.PromptTokens}), token j of block h spelled from {@code (seed, h, j)} and every token
   * past the named blocks from {@code (seed, record, j)}. So the simulated prefix cache sees exactly
   * the trace's sharing, block for block, without building English text, and {@code promptTokens}
   * is the record's length exactly. Thread-safe.
   */
  public static RequestSource standIns(List<Trace.Record> records, int blockTokens, long seed) {
    List<Trace.Record> rs = List.copyOf(records);
    return id -> {
      Trace.Record r = rs.get((int) id);
      int in = r.inputTokens();
      long[] ids = r.hashIds();
      StringBuilder sb = new StringBuilder(4 * in);
      for (int t = 0; t < in; t++) {
        int b = t / blockTokens;
        long word = b < ids.length
            ? Draws.mix(seed, BLOCK_STREAM, ids[b] * 1_000_003L + t % blockTokens)
            : Draws.mix(seed, TAIL_STREAM, id * 1_000_003L + t);
        for (int k = 0; k < 4; k++) {
          sb.append((char) (STAND_IN_BASE + (int) ((word >>> (16 * k)) & 0xFFFF) % STAND_IN_SPAN));
        }
      }
      return new RequestSpec(id, new Prompt.Text(sb.toString()), in, true, OptionalInt.of(r.outputTokens()));
    };
  }

  /**
   * The requests of a warm-up before a replay ({@code bench --trace-warmup}): {@code distinct}
   * prompts of {@code inputTokens} tokens each asking for {@code outputTokens}, request {@code id}
   * the prompt {@code id mod distinct}. Their text is drawn from a stream of its own, so it shares
   * no block with the trace's prompts and a prefix cache warmed by it serves none of the replay.
   * Each prompt is built the first time it is asked for, on the caller's thread. Not thread-safe.
   */
  public static RequestSource warmup(int distinct, int inputTokens, int outputTokens, long seed,
      PromptSynthesizer synthesizer) {
    if (distinct < 1 || inputTokens < 1 || outputTokens < 1) {
      throw new IllegalArgumentException("a warm-up needs prompts, tokens in and out: " + distinct + ", "
          + inputTokens + ", " + outputTokens);
    }
    PromptSynthesizer.Synthesized[] built = new PromptSynthesizer.Synthesized[distinct];
    return id -> {
      int i = (int) Math.floorMod(id, (long) distinct);
      if (built[i] == null) {
        built[i] = synthesizer.text(inputTokens, Draws.forItem(seed, WARMUP_STREAM, i));
      }
      PromptSynthesizer.Synthesized p = built[i];
      return new RequestSpec(id, new Prompt.Text(p.text()), p.tokens(), p.exact(), OptionalInt.of(outputTokens));
    };
  }

  /** Stand-in characters: CJK ideographs U+4E00..U+9FFF, one UTF-16 unit each, no surrogates. */
  private static final int STAND_IN_BASE = 0x4E00;
  private static final int STAND_IN_SPAN = 0x5200;

  /** A block's text and its token count alone. */
  record Block(String text, int tokens) {}

  /** Block {@code id}: a space, then {@code blockTokens} tokens of sentences, and its count. */
  Block block(long id) {
    synchronized (blocks) {
      Block cached = blocks.get(id);
      if (cached != null) {
        return cached;
      }
    }
    String text = " " + synthesizer.text(blockTokens, Draws.forItem(seed, BLOCK_STREAM, id)).text();
    Block b = new Block(text, synthesizer.estimator().count(text));
    synchronized (blocks) {
      blocks.put(id, b);
    }
    return b;
  }
}
