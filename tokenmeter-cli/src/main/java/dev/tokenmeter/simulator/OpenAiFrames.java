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
  private final ToolCalls.Call toolCall;
  private final String toolCallId;
  private boolean toolHeaderSent;
  private boolean refusal;

  OpenAiFrames(GenerationRequest.Api api, String id, long createdSeconds, String model, String quotedModel,
      ToolCalls.Call toolCall, String toolCallId) {
    this.api = api;
    this.toolCall = api == GenerationRequest.Api.CHAT ? toolCall : null;
    this.toolCallId = toolCallId;
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
    if (toolCall == null) {
      frames.writeToken(out, tokenJson, finishReason);
      return;
    }
    if (!toolHeaderSent) {
      toolHeaderSent = true;
      frames.writeToolHeader(out, toolCallId, toolCall.name());
    }
    frames.writeToolArguments(out, tokenJson, finishReason);
  }

  @Override
  public int tokenChunkBound(byte[] tokenJson) {
    return frames.tokenChunkBound(tokenJson) + (toolCall == null ? 0 : 512 + toolCall.name().length() * 6);
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
        toolCallId, toolCall == null ? null : toolCall.name(), refusal);
  }
}
