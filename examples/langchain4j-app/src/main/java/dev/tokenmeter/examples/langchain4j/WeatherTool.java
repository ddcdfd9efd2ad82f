package dev.tokenmeter.examples.langchain4j;

import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** The chat service's one tool: today's weather in a city (a fixed table: the example needs no network). */
public final class WeatherTool {
  /** The tool as the model sees it. */
  public static final ToolSpecification SPEC = ToolSpecification.builder()
      .name("get_weather")
      .description("Today's weather in a city")
      .parameters(JsonObjectSchema.builder().addStringProperty("city", "the city's name").required("city").build())
      .build();

  private final List<String> calls = new CopyOnWriteArrayList<>();

  /** Runs the tool for {@code city}. */
  public String weather(String city) {
    calls.add(city);
    return switch (city.toLowerCase(java.util.Locale.ROOT)) {
      case "paris" -> "21 °C, sunny";
      case "london" -> "14 °C, light rain";
      default -> "no report for " + city;
    };
  }

  /** The cities it was called for, in order. */
  public List<String> calls() {
    return List.copyOf(calls);
  }
}
