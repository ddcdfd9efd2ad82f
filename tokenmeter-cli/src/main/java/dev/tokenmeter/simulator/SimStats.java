package dev.tokenmeter.simulator;

/**
 * A snapshot of the server's counters since it started. Immutable.
 *
 * @param connectionsOpened TCP connections accepted (1 for any number of keep-alive requests)
 * @param requests HTTP requests received, every route and outcome
 * @param generations generation requests accepted (those that produce an {@link EmissionRecord})
 * @param tokens tokens written, streamed or not, EOS included
 */
public record SimStats(long connectionsOpened, long requests, long generations, long tokens) {}
