package dev.tokenmeter.simulator;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;

/**
 * The arguments the simulator's tool calls carry, for the virtual engine ({@code simulate
 * --profile agent}) as for {@code sim serve} (docs/SIM-SERVE.md, "Tool calls in `sim serve`"). Stateless.
 */
public final class ToolArguments {
  private static final ObjectMapper JSON = new ObjectMapper();

  private ToolArguments() {}

  /**
   * A call's arguments for a function whose parameters are the JSON Schema {@code parametersJson},
   * cut into output tokens of 4 characters, as sim serve streams them; {@code {}} in one token for a
   * schema that is not JSON.
   */
  public static List<String> pieces(String parametersJson) {
    String arguments;
    try {
      arguments = ToolCalls.arguments(JSON.readTree(parametersJson));
    } catch (JsonProcessingException e) {
      arguments = "{}";
    }
    return new ToolCalls.Call("", arguments).pieces();
  }
}
