package dev.tokenmeter.simulator;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

/**
 * Each API's frames byte for byte for a two-token answer (a word, then EOS or a cut at the limit),
 * as the provider documents them (each frames class names its source).
 */
class WireFramesTest {
  private static final byte[] WORD = " café".getBytes(UTF_8);

  private static String stream(WireFrames f, String finish) {
    ByteBuf out = Unpooled.buffer();
    try {
      f.writeOpening(out);
      f.writeToken(out, WORD, null);
      f.writeToken(out, finish.equals("stop") ? new byte[0] : " x".getBytes(UTF_8), finish);
      f.writeClosing(out, finish, 7, 2, true);
      return out.toString(UTF_8);
    } finally {
      out.release();
    }
  }

  private static WireFrames frames(GenerationRequest.Api api) {
    return WireFrames.of(api, "msg_ab12", 1_700_000_000L, "m", "\"m\"", 7);
  }

  @Test
  void anthropic() {
    assertThat(stream(frames(GenerationRequest.Api.ANTHROPIC), "stop")).isEqualTo(
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_ab12\",\"type\":\"message\","
            + "\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":"
            + "{\"input_tokens\":7,\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":0,\"output_tokens\":1}}}\n\n"
            + "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":"
            + "{\"type\":\"text\",\"text\":\"\"}}\n\n"
            + "event: ping\ndata: {\"type\": \"ping\"}\n\n"
            + "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":"
            + "{\"type\":\"text_delta\",\"text\":\" café\"}}\n\n"
            + "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
            + "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\","
            + "\"stop_sequence\":null},\"usage\":{\"input_tokens\":7,\"cache_creation_input_tokens\":0,"
            + "\"cache_read_input_tokens\":0,\"output_tokens\":2}}\n\n"
            + "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
    assertThat(new String(frames(GenerationRequest.Api.ANTHROPIC).body("hi", "length", 7, 2), UTF_8))
        .contains("\"stop_reason\":\"max_tokens\"").contains("\"text\":\"hi\"").contains("\"output_tokens\":2}");
  }

  @Test
  void responses() {
    String s = stream(frames(GenerationRequest.Api.RESPONSES), "length");
    assertThat(s.lines().filter(l -> l.startsWith("event: ")).toList()).containsExactly(
        "event: response.created", "event: response.in_progress", "event: response.output_item.added",
        "event: response.content_part.added", "event: response.output_text.delta", "event: response.output_text.delta",
        "event: response.output_text.done", "event: response.content_part.done", "event: response.output_item.done",
        "event: response.incomplete");
    assertThat(s).contains(
        "data: {\"type\":\"response.output_text.delta\",\"item_id\":\"msg_ab12\",\"output_index\":0,\"content_index\":0,"
            + "\"delta\":\" café\",\"logprobs\":[],\"sequence_number\":4}\n\n");
    assertThat(s).contains("\"text\":\" café x\"").contains("\"incomplete_details\":{\"reason\":\"max_output_tokens\"}")
        .contains("\"usage\":{\"input_tokens\":7,\"input_tokens_details\":{\"cached_tokens\":0},\"output_tokens\":2,"
            + "\"output_tokens_details\":{\"reasoning_tokens\":0},\"total_tokens\":9}")
        .endsWith("\"sequence_number\":9}\n\n");
  }

  @Test
  void gemini() {
    assertThat(stream(frames(GenerationRequest.Api.GEMINI), "stop")).isEqualTo(
        "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \" café\"}],\"role\": \"model\"},\"index\": 0}],"
            + "\"usageMetadata\": {\"promptTokenCount\": 7,\"candidatesTokenCount\": 1,\"totalTokenCount\": 8},"
            + "\"modelVersion\": \"m\",\"responseId\": \"msg_ab12\"}\r\n\r\n"
            + "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"\"}],\"role\": \"model\"},\"finishReason\": \"STOP\","
            + "\"index\": 0}],\"usageMetadata\": {\"promptTokenCount\": 7,\"candidatesTokenCount\": 2,\"totalTokenCount\": 9},"
            + "\"modelVersion\": \"m\",\"responseId\": \"msg_ab12\"}\r\n\r\n");
  }

  /** Every API that reports cached prompt tokens does so in its own field, once told. */
  @Test
  void cachedPromptTokensInEachApisUsage() {
    WireFrames anthropic = frames(GenerationRequest.Api.ANTHROPIC);
    anthropic.cachedPromptTokens(5);
    String usage = "\"usage\":{\"input_tokens\":2,\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":5,";
    assertThat(stream(anthropic, "stop")) // input_tokens excludes cache reads, in message_start and message_delta
        .contains(usage + "\"output_tokens\":1}}}").contains(usage + "\"output_tokens\":2}}");
    assertThat(new String(anthropic.body("hi", "stop", 7, 2), UTF_8)).contains(usage + "\"output_tokens\":2}}");

    WireFrames responses = frames(GenerationRequest.Api.RESPONSES);
    responses.cachedPromptTokens(5);
    assertThat(stream(responses, "stop")).contains("\"input_tokens\":7,\"input_tokens_details\":{\"cached_tokens\":5}");
    assertThat(new String(responses.body("hi", "stop", 7, 2), UTF_8))
        .contains("\"input_tokens\":7,\"input_tokens_details\":{\"cached_tokens\":5}");

    WireFrames gemini = frames(GenerationRequest.Api.GEMINI);
    gemini.cachedPromptTokens(5);
    String meta = "\"usageMetadata\": {\"promptTokenCount\": 7,\"candidatesTokenCount\": 2,\"totalTokenCount\": 9,"
        + "\"cachedContentTokenCount\": 5}";
    assertThat(stream(gemini, "stop")).contains(meta);
    assertThat(new String(gemini.body("hi", "stop", 7, 2), UTF_8)).contains(meta);

    WireFrames chat = frames(GenerationRequest.Api.CHAT);
    chat.cachedPromptTokens(5);
    assertThat(stream(chat, "stop")).contains("\"prompt_tokens\":7,\"total_tokens\":9,\"completion_tokens\":2,"
        + "\"prompt_tokens_details\":{\"cached_tokens\":5}}");
    assertThat(new String(chat.body("hi", "stop", 7, 2), UTF_8)).contains("\"prompt_tokens_details\":{\"cached_tokens\":5}");
  }

  /** A tool call's frames in each API's format; the argument pieces reassemble to the arguments. */
  @Test
  void toolCallFramesReassembleToTheArguments() throws Exception {
    com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
    ToolCalls.Call call = new ToolCalls.Call("get_weather", "{\"city\":\"Zürich\",\"days\":1}");
    for (GenerationRequest.Api api : java.util.List.of(GenerationRequest.Api.CHAT, GenerationRequest.Api.ANTHROPIC)) {
      WireFrames f = WireFrames.of(api, "msg_ab12", 1_700_000_000L, "m", "\"m\"", 7, ToolCalls.Reply.of(call, "call_1"));
      ByteBuf out = Unpooled.buffer();
      java.util.List<String> pieces = call.pieces();
      f.writeOpening(out);
      for (int i = 0; i < pieces.size(); i++) {
        f.writeToken(out, Bodies.escaped(pieces.get(i)), i == pieces.size() - 1 ? "tool_calls" : null);
      }
      f.writeClosing(out, "tool_calls", 7, pieces.size(), true);
      String stream = out.toString(UTF_8);
      out.release();
      StringBuilder arguments = new StringBuilder();
      String finish = null;
      for (String line : stream.split("\n")) {
        if (!line.startsWith("data: {")) {
          continue;
        }
        com.fasterxml.jackson.databind.JsonNode e = json.readTree(line.substring(6));
        if (api == GenerationRequest.Api.CHAT) {
          com.fasterxml.jackson.databind.JsonNode c = e.path("choices").path(0);
          arguments.append(c.path("delta").path("tool_calls").path(0).path("function").path("arguments").asText(""));
          finish = c.path("finish_reason").isTextual() ? c.path("finish_reason").asText() : finish;
        } else {
          arguments.append(e.path("delta").path("partial_json").asText(""));
          finish = e.path("delta").path("stop_reason").isTextual() ? e.path("delta").path("stop_reason").asText() : finish;
        }
      }
      assertThat(json.readTree(arguments.toString())).as(api.name()).isEqualTo(json.readTree(call.arguments()));
      assertThat(finish).isEqualTo(api == GenerationRequest.Api.CHAT ? "tool_calls" : "tool_use");
      if (api == GenerationRequest.Api.CHAT) {
        assertThat(stream).contains("\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\","
            + "\"function\":{\"name\":\"get_weather\",\"arguments\":\"\"}}]}");
        com.fasterxml.jackson.databind.JsonNode body = json.readTree(f.body(call.arguments(), "tool_calls", 7, 6));
        com.fasterxml.jackson.databind.JsonNode message = body.path("choices").path(0).path("message");
        assertThat(message.path("content").isNull()).isTrue();
        assertThat(message.path("tool_calls").path(0).path("id").asText()).isEqualTo("call_1");
        assertThat(message.path("tool_calls").path(0).path("function").path("arguments").asText()).isEqualTo(call.arguments());
        assertThat(body.path("choices").path(0).path("finish_reason").asText()).isEqualTo("tool_calls");
      } else {
        assertThat(stream).contains("\"content_block\":{\"type\":\"tool_use\",\"id\":\"call_1\",\"name\":\"get_weather\","
            + "\"input\":{}}");
        com.fasterxml.jackson.databind.JsonNode body = json.readTree(f.body(call.arguments(), "tool_calls", 7, 6));
        assertThat(body.path("content").path(0).path("type").asText()).isEqualTo("tool_use");
        assertThat(body.path("content").path(0).path("input")).isEqualTo(json.readTree(call.arguments()));
        assertThat(body.path("stop_reason").asText()).isEqualTo("tool_use");
      }
    }
  }

  /**
   * Gemini sends a function call whole, as its REST stream does (ai.google.dev/api/generate-content:
   * a {@code functionCall} part with {@code name} and {@code args}), in the last chunk, finish STOP,
   * the argument tokens in candidatesTokenCount; the Responses API streams a function_call item
   * (platform.openai.com/docs/guides/function-calling, "Streaming": {@code response.output_item.added}
   * with {@code call_id} and {@code name}, {@code response.function_call_arguments.delta} pieces,
   * {@code .done} with the whole arguments).
   */
  @Test
  void geminiAndResponsesToolCallFrames() throws Exception {
    com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
    ToolCalls.Call call = new ToolCalls.Call("get_weather", "{\"city\":\"Zürich\",\"days\":1}");
    java.util.List<String> pieces = call.pieces();

    WireFrames g = WireFrames.of(GenerationRequest.Api.GEMINI, "resp_ab12", 1_700_000_000L, "m", "\"m\"", 7, ToolCalls.Reply.of(call, null));
    ByteBuf out = Unpooled.buffer();
    for (int i = 0; i < pieces.size(); i++) {
      g.writeToken(out, Bodies.escaped(pieces.get(i)), i == pieces.size() - 1 ? "tool_calls" : null);
    }
    String stream = out.toString(UTF_8);
    out.release();
    assertThat(stream.split("\r\n\r\n")).as("one chunk, the whole call").hasSize(1);
    com.fasterxml.jackson.databind.JsonNode chunk = json.readTree(stream.substring("data: ".length()));
    com.fasterxml.jackson.databind.JsonNode candidate = chunk.path("candidates").path(0);
    assertThat(candidate.path("content").path("parts").path(0).path("functionCall")).isEqualTo(json.readTree(
        "{\"name\":\"get_weather\",\"args\":" + call.arguments() + "}"));
    assertThat(candidate.path("finishReason").asText()).isEqualTo("STOP");
    assertThat(chunk.path("usageMetadata").path("candidatesTokenCount").asInt()).isEqualTo(pieces.size());
    com.fasterxml.jackson.databind.JsonNode gBody = json.readTree(g.body(call.arguments(), "tool_calls", 7, 6));
    assertThat(gBody.path("candidates").path(0).path("content").path("parts").path(0).path("functionCall").path("args"))
        .isEqualTo(json.readTree(call.arguments()));

    WireFrames r = WireFrames.of(GenerationRequest.Api.RESPONSES, "resp_ab12", 1_700_000_000L, "m", "\"m\"", 7,
        ToolCalls.Reply.of(call, "call_1"));
    out = Unpooled.buffer();
    r.writeOpening(out);
    for (int i = 0; i < pieces.size(); i++) {
      r.writeToken(out, Bodies.escaped(pieces.get(i)), i == pieces.size() - 1 ? "tool_calls" : null);
    }
    r.writeClosing(out, "tool_calls", 7, pieces.size(), true);
    stream = out.toString(UTF_8);
    out.release();
    StringBuilder arguments = new StringBuilder();
    java.util.List<String> types = new java.util.ArrayList<>();
    com.fasterxml.jackson.databind.JsonNode added = null;
    com.fasterxml.jackson.databind.JsonNode done = null;
    for (String line : stream.split("\n")) {
      if (!line.startsWith("data: {")) {
        continue;
      }
      com.fasterxml.jackson.databind.JsonNode e = json.readTree(line.substring(6));
      String type = e.path("type").asText();
      if (!types.contains(type)) {
        types.add(type);
      }
      switch (type) {
        case "response.output_item.added" -> added = e.path("item");
        case "response.function_call_arguments.delta" -> arguments.append(e.path("delta").asText());
        case "response.function_call_arguments.done" -> done = e;
        default -> {}
      }
    }
    assertThat(types).containsExactly("response.created", "response.in_progress", "response.output_item.added",
        "response.function_call_arguments.delta", "response.function_call_arguments.done", "response.output_item.done",
        "response.completed");
    assertThat(added.path("type").asText()).isEqualTo("function_call");
    assertThat(added.path("call_id").asText()).isEqualTo("call_1");
    assertThat(added.path("name").asText()).isEqualTo("get_weather");
    assertThat(added.path("id").asText()).startsWith("fc_");
    assertThat(arguments.toString()).isEqualTo(call.arguments());
    assertThat(done.path("arguments").asText()).isEqualTo(call.arguments());
    com.fasterxml.jackson.databind.JsonNode rBody = json.readTree(r.body(call.arguments(), "tool_calls", 7, 6));
    com.fasterxml.jackson.databind.JsonNode item = rBody.path("output").path(0);
    assertThat(item.path("type").asText()).isEqualTo("function_call");
    assertThat(item.path("call_id").asText()).isEqualTo("call_1");
    assertThat(item.path("arguments").asText()).isEqualTo(call.arguments());
  }

  /**
   * Parallel calls: three calls, one after the other, in each API's own form: OpenAI deltas keyed
   * by index 0, 1, 2 with a header naming each; Anthropic a tool_use block each at index 0, 1, 2
   * (stop, then start); Responses a function_call item each at output_index 0, 1, 2; Gemini three
   * functionCall parts in the last chunk. Each call's pieces reassemble to its arguments; the
   * non-streamed bodies carry the three calls too.
   */
  @Test
  void parallelToolCallsAreFramedCallAfterCallInEachApi() throws Exception {
    com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
    java.util.List<ToolCalls.Call> calls = java.util.List.of(new ToolCalls.Call("read_file", "{\"path\":\"a.txt\"}"),
        new ToolCalls.Call("search_code", "{\"pattern\":\"x\"}"), new ToolCalls.Call("run_command", "{\"command\":\"ls\"}"));
    for (GenerationRequest.Api api : java.util.List.of(GenerationRequest.Api.CHAT, GenerationRequest.Api.ANTHROPIC,
        GenerationRequest.Api.RESPONSES, GenerationRequest.Api.GEMINI)) {
      java.util.List<String> ids = api == GenerationRequest.Api.GEMINI ? java.util.Arrays.asList(null, null, null)
          : java.util.List.of("c_0", "c_1", "c_2");
      ToolCalls.Reply reply = new ToolCalls.Reply(calls, ids);
      WireFrames f = WireFrames.of(api, "resp_ab12", 1_700_000_000L, "m", "\"m\"", 7, reply);
      ByteBuf out = Unpooled.buffer();
      java.util.List<String> pieces = reply.pieces();
      f.writeOpening(out);
      for (int i = 0; i < pieces.size(); i++) {
        f.writeToken(out, Bodies.escaped(pieces.get(i)), i == pieces.size() - 1 ? "tool_calls" : null);
      }
      f.writeClosing(out, "tool_calls", 7, pieces.size(), true);
      String stream = out.toString(UTF_8);
      out.release();
      java.util.Map<Integer, StringBuilder> arguments = new java.util.TreeMap<>();
      java.util.Map<Integer, String> names = new java.util.TreeMap<>();
      java.util.Map<Integer, String> callIds = new java.util.TreeMap<>();
      for (String line : stream.split("\r?\n")) {
        if (!line.startsWith("data: {")) {
          continue;
        }
        com.fasterxml.jackson.databind.JsonNode e = json.readTree(line.substring(6));
        switch (api) {
          case CHAT -> {
            for (com.fasterxml.jackson.databind.JsonNode c : e.path("choices").path(0).path("delta").path("tool_calls")) {
              int i = c.path("index").asInt();
              if (c.has("id")) {
                callIds.put(i, c.path("id").asText());
                names.put(i, c.path("function").path("name").asText());
              }
              arguments.computeIfAbsent(i, k -> new StringBuilder()).append(c.path("function").path("arguments").asText(""));
            }
          }
          case ANTHROPIC -> {
            int i = e.path("index").asInt(-1);
            if (e.path("type").asText().equals("content_block_start")) {
              callIds.put(i, e.path("content_block").path("id").asText());
              names.put(i, e.path("content_block").path("name").asText());
            }
            if (e.path("delta").path("type").asText().equals("input_json_delta")) {
              arguments.computeIfAbsent(i, k -> new StringBuilder()).append(e.path("delta").path("partial_json").asText());
            }
          }
          case RESPONSES -> {
            int i = e.path("output_index").asInt(-1);
            if (e.path("type").asText().equals("response.output_item.added")) {
              callIds.put(i, e.path("item").path("call_id").asText());
              names.put(i, e.path("item").path("name").asText());
            }
            if (e.path("type").asText().equals("response.function_call_arguments.delta")) {
              arguments.computeIfAbsent(i, k -> new StringBuilder()).append(e.path("delta").asText());
            }
          }
          default -> {
            com.fasterxml.jackson.databind.JsonNode parts = e.path("candidates").path(0).path("content").path("parts");
            for (int i = 0; i < parts.size(); i++) {
              names.put(i, parts.path(i).path("functionCall").path("name").asText());
              arguments.computeIfAbsent(i, k -> new StringBuilder()).append(parts.path(i).path("functionCall").path("args"));
            }
          }
        }
      }
      assertThat(names.keySet()).as(api.name()).containsExactly(0, 1, 2);
      for (int i = 0; i < 3; i++) {
        assertThat(names.get(i)).as(api.name()).isEqualTo(calls.get(i).name());
        assertThat(json.readTree(arguments.get(i).toString())).as(api + " call " + i)
            .isEqualTo(json.readTree(calls.get(i).arguments()));
        if (api != GenerationRequest.Api.GEMINI) {
          assertThat(callIds.get(i)).isEqualTo("c_" + i);
        }
      }
      String whole = String.join("", pieces);
      com.fasterxml.jackson.databind.JsonNode body = json.readTree(f.body(whole, "tool_calls", 7, pieces.size()));
      com.fasterxml.jackson.databind.JsonNode items = switch (api) {
        case CHAT -> body.path("choices").path(0).path("message").path("tool_calls");
        case ANTHROPIC -> body.path("content");
        case RESPONSES -> body.path("output");
        default -> body.path("candidates").path(0).path("content").path("parts");
      };
      assertThat(items).as(api + " body").hasSize(3);
    }
  }

  /** Three parallel calls when the server draws three; one when the request forbids parallel calls. */
  @Test
  void aRequestThatForbidsParallelCallsGetsOne() throws Exception {
    com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
    String tools = "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"a\"}},{\"type\":\"function\","
        + "\"function\":{\"name\":\"b\"}}],\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]";
    assertThat(ToolCalls.openAi(json.readTree("{" + tools + "}")).calls(3)).extracting(ToolCalls.Call::name)
        .containsExactly("a", "b", "a");
    assertThat(ToolCalls.openAi(json.readTree("{" + tools + ",\"parallel_tool_calls\":false}")).calls(3)).hasSize(1);
    String anthropic = "\"tools\":[{\"name\":\"t\",\"input_schema\":{\"type\":\"object\"}}],"
        + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]";
    assertThat(ToolCalls.anthropic(json.readTree("{" + anthropic + "}")).calls(2)).hasSize(2);
    assertThat(ToolCalls.anthropic(json.readTree("{" + anthropic
        + ",\"tool_choice\":{\"type\":\"auto\",\"disable_parallel_tool_use\":true}}")).calls(2)).hasSize(1);
    String responses = "\"tools\":[{\"type\":\"function\",\"name\":\"f\"}],\"input\":\"hi\"";
    assertThat(ToolCalls.responses(json.readTree("{" + responses + ",\"parallel_tool_calls\":false}")).calls(4)).hasSize(1);
    assertThat(ToolCalls.reply(ToolCalls.openAi(json.readTree("{" + tools + "}")), 3, "call_", "ab").ids())
        .containsExactly("call_ab", "call_ab_1", "call_ab_2");
  }

  @Test
  void geminiAndResponsesToolChoice() throws Exception {
    com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
    String decl = "\"tools\":[{\"functionDeclarations\":[{\"name\":\"a\"},{\"name\":\"b\",\"parameters\":"
        + "{\"type\":\"object\",\"properties\":{\"q\":{\"type\":\"string\"}},\"required\":[\"q\"]}}]}]";
    String user = "\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"hi\"}]}]";
    String afterTool = "\"contents\":[{\"role\":\"user\",\"parts\":[{\"functionResponse\":{\"name\":\"a\","
        + "\"response\":{}}}]}]";
    assertThat(ToolCalls.gemini(json.readTree("{" + decl + "," + user + "}")).first().name()).isEqualTo("a");
    assertThat(ToolCalls.gemini(json.readTree("{" + decl + "," + afterTool + "}"))).isNull();
    assertThat(ToolCalls.gemini(json.readTree("{" + decl + "," + afterTool
        + ",\"toolConfig\":{\"functionCallingConfig\":{\"mode\":\"ANY\",\"allowedFunctionNames\":[\"b\"]}}}")).first())
        .isEqualTo(new ToolCalls.Call("b", "{\"q\":\"example\"}"));
    assertThat(ToolCalls.gemini(json.readTree("{" + decl + "," + user
        + ",\"toolConfig\":{\"functionCallingConfig\":{\"mode\":\"NONE\"}}}"))).isNull();

    String tools = "\"tools\":[{\"type\":\"web_search\"},{\"type\":\"function\",\"name\":\"f\"}]";
    String input = "\"input\":[{\"role\":\"user\",\"content\":\"hi\"}]";
    String output = "\"input\":[{\"role\":\"user\",\"content\":\"hi\"},{\"type\":\"function_call_output\","
        + "\"call_id\":\"c\",\"output\":\"x\"}]";
    assertThat(ToolCalls.responses(json.readTree("{" + tools + "," + input + "}")).first().name()).isEqualTo("f");
    assertThat(ToolCalls.responses(json.readTree("{" + tools + "," + output + "}"))).isNull();
    assertThat(ToolCalls.responses(json.readTree("{" + tools + "," + output + ",\"tool_choice\":\"required\"}")))
        .isNotNull();
    assertThat(ToolCalls.responses(json.readTree("{" + tools + "," + input + ",\"tool_choice\":\"none\"}"))).isNull();
  }

  @Test
  void toolChoiceDecidesWhetherToCallAndArgumentsFillTheRequiredProperties() throws Exception {
    com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
    String tools = "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"a\"}},{\"type\":\"function\","
        + "\"function\":{\"name\":\"b\",\"parameters\":{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"number\","
        + "\"minimum\":3},\"o\":{\"type\":\"object\",\"properties\":{\"f\":{\"type\":\"boolean\"}},\"required\":[\"f\"]},"
        + "\"l\":{\"type\":\"array\"},\"skip\":{\"type\":\"string\"}},\"required\":[\"n\",\"o\",\"l\"]}}}]";
    String user = "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]";
    String afterTool = "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"tool\",\"content\":\"sunny\"}]";
    assertThat(ToolCalls.openAi(json.readTree("{" + tools + "," + user + "}")).first().name()).isEqualTo("a");
    assertThat(ToolCalls.openAi(json.readTree("{" + tools + "," + afterTool + "}"))).as("auto after a tool result").isNull();
    assertThat(ToolCalls.openAi(json.readTree("{" + tools + "," + afterTool + ",\"tool_choice\":\"required\"}"))).isNotNull();
    assertThat(ToolCalls.openAi(json.readTree("{" + tools + "," + user + ",\"tool_choice\":\"none\"}"))).isNull();
    ToolCalls.Call b = ToolCalls.openAi(json.readTree(
        "{" + tools + "," + afterTool + ",\"tool_choice\":{\"type\":\"function\",\"function\":{\"name\":\"b\"}}}")).first();
    assertThat(b.name()).isEqualTo("b");
    assertThat(b.arguments()).isEqualTo("{\"n\":3.0,\"o\":{\"f\":true},\"l\":[]}");
    assertThat(ToolCalls.openAi(json.readTree("{" + user + "}"))).isNull();

    String anthropicTools = "\"tools\":[{\"name\":\"t\",\"input_schema\":{\"type\":\"object\"}}]";
    String result = "\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"x\"}]}]";
    assertThat(ToolCalls.anthropic(json.readTree("{" + anthropicTools + "," + user + "}")).first().arguments()).isEqualTo("{}");
    assertThat(ToolCalls.anthropic(json.readTree("{" + anthropicTools + "," + result + "}"))).isNull();
    assertThat(ToolCalls.anthropic(json.readTree("{" + anthropicTools + "," + result + ",\"tool_choice\":{\"type\":\"any\"}}")))
        .isNotNull();
  }

  @Test
  void tgi() {
    assertThat(stream(frames(GenerationRequest.Api.TGI), "stop")).isEqualTo(
        "data:{\"index\":1,\"token\":{\"id\":1,\"text\":\" café\",\"logprob\":-0.25,\"special\":false},"
            + "\"generated_text\":null,\"details\":null}\n\n"
            + "data:{\"index\":2,\"token\":{\"id\":2,\"text\":\"</s>\",\"logprob\":-0.25,\"special\":true},"
            + "\"generated_text\":\" café\",\"details\":{\"finish_reason\":\"eos_token\",\"generated_tokens\":2,"
            + "\"seed\":null,\"input_length\":7}}\n\n");
  }

  @Test
  void ollama() {
    WireFrames chat = frames(GenerationRequest.Api.OLLAMA);
    assertThat(chat.contentType()).isEqualTo("application/x-ndjson");
    assertThat(stream(chat, "stop")).isEqualTo(
        "{\"model\":\"m\",\"created_at\":\"2023-11-14T22:13:20Z\",\"message\":{\"role\":\"assistant\",\"content\":\" café\"},"
            + "\"done\":false}\n"
            + "{\"model\":\"m\",\"created_at\":\"2023-11-14T22:13:20Z\",\"message\":{\"role\":\"assistant\",\"content\":\"\"},"
            + "\"done\":true,\"done_reason\":\"stop\",\"prompt_eval_count\":7,\"eval_count\":2}\n");
    assertThat(new String(frames(GenerationRequest.Api.OLLAMA_GENERATE).body("hi", "length", 7, 2), UTF_8)).isEqualTo(
        "{\"model\":\"m\",\"created_at\":\"2023-11-14T22:13:20Z\",\"response\":\"hi\",\"done\":true,\"done_reason\":\"length\","
            + "\"prompt_eval_count\":7,\"eval_count\":2}");
  }

  @Test
  void injectedErrorsAndMalformedFramesPerApi() {
    for (GenerationRequest.Api api : GenerationRequest.Api.values()) {
      WireFrames f = frames(api);
      ByteBuf out = Unpooled.buffer();
      f.writeError(out);
      String error = out.toString(UTF_8);
      out.clear();
      f.writeMalformed(out);
      String malformed = out.toString(UTF_8);
      out.release();
      assertThat(error).as(api.name()).containsAnyOf("fault injection", "Overloaded");
      assertThat(malformed).as(api.name()).endsWith("\n").doesNotEndWith("}\n");
      assertThat(f.tokenChunkBound(WORD)).as(api.name()).isGreaterThan(WORD.length);
    }
  }
}
