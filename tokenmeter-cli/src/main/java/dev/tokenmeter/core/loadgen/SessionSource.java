package dev.tokenmeter.core.loadgen;

import dev.tokenmeter.core.request.RequestSpec;

/**
 * A {@link RequestSource} whose requests come in conversations: the engine opens a session per
 * closed-loop user (a new one when one ends) or per open-loop arrival, and asks the session for
 * each turn in order, handing it every answer. Seeded: session {@code n} of a stage is the same
 * conversation in every run with the same seed (its answers aside, which are the server's).
 */
public interface SessionSource extends RequestSource {

  /**
   * Opens session {@code session} (ids count up from 0 within a stage). Called on the engine's
   * loop: must be cheap (prepare text ahead of time).
   */
  Conversation open(long session);

  /**
   * The first turn of a fresh session {@code id}: what a caller that knows nothing of sessions
   * (a pre-flight, a one-request probe) sends.
   */
  @Override
  default RequestSpec next(long id) {
    return open(id).next(id);
  }
}
