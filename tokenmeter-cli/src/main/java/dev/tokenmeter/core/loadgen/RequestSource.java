package dev.tokenmeter.core.loadgen;

import dev.tokenmeter.core.request.RequestSpec;

/**
 * Supplies what each request sends. Seeded implementations return the same sequence for the same
 * seed, so two runs (or two variants) send the same prompts in the same order. Called on the
 * engine's loop: must be cheap (prepare prompts ahead of time, not here).
 */
public interface RequestSource {

  /** The spec for request {@code id} (ids count up from 0 within a stage). */
  RequestSpec next(long id);
}
