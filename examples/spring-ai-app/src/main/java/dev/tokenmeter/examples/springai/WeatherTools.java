package dev.tokenmeter.examples.springai;

import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.ai.tool.annotation.ToolParam;
import org.springframework.stereotype.Component;

/** The chat service's one tool: today's weather in a city (a fixed table: the example needs no network). */
@Component
public class WeatherTools {
  private final List<String> calls = new CopyOnWriteArrayList<>();

  @Tool(name = "get_weather", description = "Today's weather in a city")
  public String getWeather(@ToolParam(description = "the city's name") String city) {
    calls.add(city);
    return switch (city.toLowerCase(Locale.ROOT)) {
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
