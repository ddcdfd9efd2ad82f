package dev.tokenmeter.ledger;

/**
 * What {@code proxy export-trace} reads of one ledger row that was sent upstream.
 *
 * @param startedAtEpochMillis when the proxy received it
 * @param ok whether it completed
 * @param inputTokens prompt tokens, or -1 when unknown
 * @param outputTokens output tokens, or -1 when unknown
 * @param conversation the conversation key the client sent, or null
 * @param blocksOrNull the prompt's keyed block hashes, or null when none were captured
 */
public record TraceRow(long startedAtEpochMillis, boolean ok, int inputTokens, int outputTokens, String conversation,
    PromptBlocks blocksOrNull) {}
