package dev.tokenmeter.simulator;

import io.netty.buffer.ByteBuf;

/** Chat and completions: {@link StreamFrames} (vLLM's SSE) and {@link Bodies#completion}. */
final class OpenAiFrames implements WireFrames {
  private final GenerationRequest.Api api;
  private final StreamFrames frames;
  private final String id;
  private final long createdSeconds;
  private final String model;
  private int cachedTokens;
  private final ToolCalls.Reply toolCalls;
  private final int[] starts;
  /** Tokens written, and the call they belong to (-1 before the first). */
  private int token;
  private int call = -1;
  private boolean refusal;

  OpenAiFrames(GenerationRequest.Api api, String id, long createdSeconds, String model, String quotedModel,
      ToolCalls.Reply toolCalls) {
    this.api = api;
    this.toolCalls = api == GenerationRequest.Api.CHAT ? toolCalls : null;
    this.starts = this.toolCalls == null ? null : this.toolCalls.starts();
    this.frames = new StreamFrames(api, id, createdSeconds, quotedModel);
    this.id = id;
    this.createdSeconds = createdSeconds;
    this.model = model;
  }

  @Override
  public void writeOpening(ByteBuf out) {
    if (hasOpening()) {
      frames.writeRoleChunk(out);
    }
  }

  @Override
  public boolean hasOpening() {
    return api == GenerationRequest.Api.CHAT;
  }

  @Override
  public void writeToken(ByteBuf out, byte[] tokenJson, String finishReason) {
    if (toolCalls == null) {
      frames.writeToken(out, tokenJson, finishReason);
      return;
    }
    while (call + 1 < starts.length && token >= starts[call + 1]) {
      call++;
      frames.writeToolHeader(out, call, toolCalls.id(call), toolCalls.call(call).name());
    }
    frames.writeToolArguments(out, call, tokenJson, finishReason);
    token++;
  }

  @Override
  public int tokenChunkBound(byte[] tokenJson) {
    return frames.tokenChunkBound(tokenJson) + (toolCalls == null ? 0 : 512 + maxNameLength() * 6);
  }

  @Override
  public void writeClosing(ByteBuf out, String finishReason, int promptTokens, int completionTokens, boolean includeUsage) {
    if (includeUsage) {
      frames.writeUsage(out, promptTokens, completionTokens, cachedTokens);
    }
    out.writeBytes(StreamFrames.DONE);
  }

  @Override
  public void cachedPromptTokens(int tokens) {
    cachedTokens = tokens;
  }

  @Override
  public void writeError(ByteBuf out) {
    out.writeBytes(StreamFrames.ERROR_EVENT);
    out.writeBytes(StreamFrames.DONE);
  }

  @Override
  public void writeMalformed(ByteBuf out) {
    frames.writeMalformed(out);
  }

  @Override
  public void refusal() {
    if (api != GenerationRequest.Api.CHAT) {
      WireFrames.super.refusal();
    }
    refusal = true;
    frames.refusal();
  }

  @Override
  public byte[] body(String text, String finishReason, int promptTokens, int completionTokens) {
    return Bodies.completion(api, id, createdSeconds, model, text, finishReason, promptTokens, completionTokens, cachedTokens,
        toolCalls, refusal);
  }

  private int maxNameLength() {
    int n = 0;
    for (ToolCalls.Call c : toolCalls.calls()) {
      n = Math.max(n, c.name().length());
    }
    return n;
  }
}
