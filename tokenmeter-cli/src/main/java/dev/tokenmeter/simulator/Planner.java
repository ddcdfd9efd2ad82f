package dev.tokenmeter.simulator;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Turns a parsed request into a {@link Generation.Plan}: validates it as vLLM would, then draws
 * its fault, its output length and the seed of its text. Stateless, thread-safe.
 *
 * <p>Reproducibility: the request's random stream is keyed by its {@code seed} field when it sends
 * one, else by the server's request sequence number (so with sequential requests a run repeats
 * exactly; concurrent arrivals may permute which request gets which draw). Draw order: fault,
 * natural length, then one draw per text token.
 */
final class Planner {

  private Planner() {}

  static Generation.Plan plan(
      ServerState state, RequestParser.Parsed parsed, long arrivalNanos, String clientRequestId)
      throws RequestParser.Rejected {
    return plan(state, parsed, arrivalNanos, clientRequestId, null);
  }

  /** As above, answering with {@code scripted} text or tool call ({@link Script}) when not null. */
  static Generation.Plan plan(ServerState state, RequestParser.Parsed parsed, long arrivalNanos,
      String clientRequestId, Scripted scripted) throws RequestParser.Rejected {
    SimConfig config = state.config;
    if (parsed.model() != null && !parsed.model().equals(config.servedModelName())) {
      throw new RequestParser.Rejected(
          404, "NotFoundError", "The model `" + parsed.model() + "` does not exist.");
    }
    int maxTokens = parsed.maxTokens() > 0 ? parsed.maxTokens() : config.defaultMaxTokens();
    if (parsed.minTokens() > maxTokens) {
      throw RequestParser.Rejected.badRequest(
          "min_tokens must be less than or equal to max_tokens="
              + maxTokens
              + ", got "
              + parsed.minTokens()
              + ".");
    }
    long requested = (long) parsed.promptTokens() + maxTokens;
    if (requested > config.maxModelLen()) {
      throw RequestParser.Rejected.badRequest(
          "This model's maximum context length is "
              + config.maxModelLen()
              + " tokens. However, you requested "
              + requested
              + " tokens ("
              + parsed.promptTokens()
              + " in the messages, "
              + maxTokens
              + " in the completion). Please reduce the length of the messages or completion.");
    }
    long id = state.nextRequestId();
    long key = parsed.seed() != null ? parsed.seed() : id;
    SplittableRandom random = new SplittableRandom(Ids.streamSeed(config.seed(), key));
    Fault fault = config.faults().pick(random.nextDouble(), parsed.stream());
    int natural = config.outputLengths().sample(random);
    int outputTokens;
    EmissionRecord.Ending finish;

    ToolCalls.Offer offer = scripted instanceof Scripted.ToolCall c
        ? new ToolCalls.Offer(List.of(new ToolCalls.Call(c.name(), c.arguments())), false)
        : scripted instanceof Scripted.Text || scripted instanceof Scripted.Refusal ? null : parsed.toolOffer();
    // drawn from the request's stream only when it calls tools, so text answers draw as before
    ToolCalls.Reply call = offer == null ? null
        : ToolCalls.reply(offer, config.parallelToolCalls().sample(random), switch (parsed.api()) {
          case ANTHROPIC -> "toolu_";
          case GEMINI -> null; // Gemini's functionCall carries no id
          default -> "call_";
        }, Ids.hex(config.seed(), -id));
    List<String> textPieces = null;
    Scripted.Text t = scripted instanceof Scripted.Text text ? text
        : scripted instanceof Scripted.Refusal r ? new Scripted.Text(r.message()) : null;
    if (t != null) {
      // the text's pieces, then EOS (counted in completion_tokens, as vLLM does) when it ends naturally
      List<String> pieces = new ArrayList<>(t.pieces());
      if (config.eosChunk() && pieces.size() < maxTokens) {
        pieces.add("");
      }
      outputTokens = Math.min(pieces.size(), maxTokens);
      finish = pieces.size() <= maxTokens ? EmissionRecord.Ending.STOP : EmissionRecord.Ending.LENGTH;
      textPieces = List.copyOf(pieces.subList(0, outputTokens));
    } else if (call != null) {
      // the calls are as long as their arguments, cut at max_tokens as real ones would be
      int pieces = call.pieces().size();
      outputTokens = Math.min(pieces, maxTokens);
      finish = pieces <= maxTokens ? EmissionRecord.Ending.TOOL_CALLS : EmissionRecord.Ending.LENGTH;
    } else if (parsed.ignoreEos()) {
      outputTokens = maxTokens;
      finish = EmissionRecord.Ending.LENGTH;
    } else {
      // vLLM: EOS cannot be sampled before min_tokens tokens, so it is at least token min + 1.
      natural = (int) Math.max(natural, parsed.minTokens() + 1L);
      outputTokens = Math.min(natural, maxTokens);
      finish = natural < maxTokens ? EmissionRecord.Ending.STOP : EmissionRecord.Ending.LENGTH;
    }
    GenerationRequest request =
        new GenerationRequest(
            id,
            parsed.api(),
            parsed.stream(),
            parsed.promptTokens(),
            maxTokens,
            outputTokens,
            arrivalNanos,
            parsed.promptIds());
    String prefix = ApiRoutes.idPrefix(parsed.api());
    return new Generation.Plan(
        request,
        parsed.includeUsage(),
        finish,
        fault,
        prefix + Ids.hex(config.seed(), id),
        config.wallClock().instant().getEpochSecond(),
        state.quotedModel,
        clientRequestId,
        random.nextLong(),
        call,
        textPieces,
        scripted instanceof Scripted.Refusal);
  }
}
