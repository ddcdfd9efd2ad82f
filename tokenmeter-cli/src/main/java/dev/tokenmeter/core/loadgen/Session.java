package dev.tokenmeter.core.loadgen;

import dev.tokenmeter.core.metrics.SessionRecorder;
import dev.tokenmeter.core.request.RequestTimeline;

/**
 * The engine's bookkeeping of one conversation in flight: the {@link Conversation} that builds its
 * turns, when it started, and what its answered turns carried. Loop-confined.
 */
final class Session {
  final long id;
  final Conversation conversation;
  /** When its first turn was scheduled. */
  final long startNanos;
  int turns;
  long promptTokens;
  long answerTokens;

  Session(long id, Conversation conversation, long startNanos) {
    this.id = id;
    this.conversation = conversation;
    this.startNanos = startNanos;
  }

  /**
   * Adds turn {@code t}'s tokens: the server's usage where reported, else the client's prompt count
   * and the answer's chunk count (the exact count may still be running off the loop).
   */
  void answered(RequestTimeline t) {
    turns++;
    int prompt = t.usagePromptTokens() >= 0 ? t.usagePromptTokens() : t.spec().promptTokens();
    promptTokens += Math.max(0, prompt);
    answerTokens += t.usageCompletionTokens() >= 0 ? t.usageCompletionTokens() : t.chunkCount();
  }

  /** Tells {@code recorder} this session ended at {@code nanos}, how. */
  void end(SessionRecorder recorder, SessionRecorder.Ending how, long nanos) {
    recorder.ended(how, turns, nanos - startNanos, promptTokens, answerTokens);
  }

  static SessionRecorder.Ending ending(Conversation.End end) {
    return end == Conversation.End.MAX_CONTEXT ? SessionRecorder.Ending.MAX_CONTEXT : SessionRecorder.Ending.FINISHED;
  }
}
