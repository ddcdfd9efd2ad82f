package dev.tokenmeter.junit5;

import dev.tokenmeter.api.Simulator;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * The extension behind {@link TokenmeterSimulator}: starts simulators for annotated classes and
 * fields, injects them, sets and restores the system properties, stops them. Register it through
 * the annotation. Simulators are closed by JUnit's store ({@link AutoCloseable}) even when a
 * lifecycle method fails.
 */
public final class SimulatorExtension
    implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback, ParameterResolver {

  private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(SimulatorExtension.class);
  private static final String CLASS_SIM = "class-simulator";
  private static final String TEST_SIM = "test-simulator";

  @Override
  public void beforeAll(ExtensionContext context) {
    Class<?> testClass = context.getRequiredTestClass();
    Optional<TokenmeterSimulator> onClass = AnnotationSupport.findAnnotation(testClass, TokenmeterSimulator.class);
    Running running = null;
    if (onClass.isPresent()) {
      running = start(onClass.get());
      context.getStore(NS).put(CLASS_SIM, running);
    }
    for (Field f : fields(testClass, true)) {
      Running r = running != null ? running : start(f.getAnnotation(TokenmeterSimulator.class));
      if (running == null) {
        running = r;
        context.getStore(NS).put(CLASS_SIM, r);
      }
      set(f, null, r.simulator());
    }
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    Object instance = context.getRequiredTestInstance();
    for (Field f : fields(instance.getClass(), false)) {
      Running r = context.getStore(NS).get(TEST_SIM, Running.class);
      if (r == null) {
        r = start(f.getAnnotation(TokenmeterSimulator.class));
        context.getStore(NS).put(TEST_SIM, r);
      }
      set(f, instance, r.simulator());
    }
  }

  @Override
  public void afterEach(ExtensionContext context) {
    Running r = context.getStore(NS).remove(TEST_SIM, Running.class);
    if (r != null) {
      r.close();
    }
  }

  @Override
  public void afterAll(ExtensionContext context) {
    Running r = context.getStore(NS).remove(CLASS_SIM, Running.class);
    if (r != null) {
      r.close();
    }
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == Simulator.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    Running r = context.getStore(NS).get(TEST_SIM, Running.class);
    if (r == null) {
      r = context.getStore(NS).get(CLASS_SIM, Running.class); // the class's, found through the parent context
    }
    if (r == null) {
      throw new ExtensionConfigurationException("no tokenmeter simulator for this parameter: annotate the test class"
          + " with @TokenmeterSimulator (or a Simulator field)");
    }
    return r.simulator();
  }

  /** Starts a simulator as {@code a} says and points the system properties at it. */
  static Running start(TokenmeterSimulator a) {
    Simulator.Builder b = Simulator.builder().api(a.api()).port(a.port()).faults(a.faults());
    if (!a.preset().isEmpty()) {
      String[] parts = a.preset().split("@", 2);
      if (parts.length != 2 || parts[0].isBlank() || parts[1].isBlank()) {
        throw new ExtensionConfigurationException("@TokenmeterSimulator(preset = \"" + a.preset()
            + "\"): write MODEL@GPU, e.g. \"llama-3.1-8b@h100-sxm\" (`tokenmeter sim presets` lists them)");
      }
      b.preset(parts[0].trim(), parts[1].trim());
    } else {
      b.ttft(Duration.ofMillis(a.ttftMillis())).itl(Duration.ofMillis(a.itlMillis()));
    }
    if (!a.model().isEmpty()) {
      b.model(a.model());
    }
    Simulator sim;
    try {
      sim = b.start();
    } catch (IllegalArgumentException | IllegalStateException e) {
      throw new ExtensionConfigurationException("@TokenmeterSimulator: " + e.getMessage(), e);
    }
    return new Running(sim, a.systemProperties() ? SystemProperties.pointAt(sim) : SystemProperties.NONE);
  }

  private static List<Field> fields(Class<?> type, boolean statics) {
    List<Field> out = new ArrayList<>();
    for (Field f : AnnotationSupport.findAnnotatedFields(type, TokenmeterSimulator.class)) {
      if (Modifier.isStatic(f.getModifiers()) != statics) {
        continue;
      }
      if (f.getType() != Simulator.class) {
        throw new ExtensionConfigurationException("@TokenmeterSimulator field " + f.getName() + " must be of type "
            + Simulator.class.getName() + ", not " + f.getType().getName());
      }
      out.add(f);
    }
    return out;
  }

  private static void set(Field f, Object target, Simulator sim) {
    try {
      f.setAccessible(true);
      f.set(target, sim);
    } catch (IllegalAccessException e) {
      throw new ExtensionConfigurationException("cannot set @TokenmeterSimulator field " + f.getName(), e);
    }
  }

  /** A started simulator and the properties to restore; closed by the store. */
  record Running(Simulator simulator, SystemProperties properties) implements AutoCloseable {
    @Override
    public void close() {
      properties.restore();
      simulator.close();
    }
  }

  /** The system properties set for one simulator, with the values they replaced. */
  static final class SystemProperties {
    static final SystemProperties NONE = new SystemProperties(Map.of());
    private final Map<String, String> previous;

    private SystemProperties(Map<String, String> previous) {
      this.previous = previous;
    }

    /** The properties {@link TokenmeterSimulator} documents, for {@code sim}. */
    static Map<String, String> of(Simulator sim) {
      String root = sim.url();
      String v1 = root + "/v1";
      Map<String, String> p = new LinkedHashMap<>();
      p.put("tokenmeter.simulator.url", root);
      p.put("tokenmeter.simulator.base-url", sim.baseUrl());
      p.put("tokenmeter.simulator.port", Integer.toString(sim.port()));
      p.put("tokenmeter.simulator.model", sim.model());
      p.put("spring.ai.openai.base-url", v1); // Spring AI 2.0 hands it to the openai-java SDK, which wants /v1
      p.put("spring.ai.anthropic.base-url", root);
      p.put("spring.ai.ollama.base-url", root);
      p.put("langchain4j.open-ai.chat-model.base-url", v1);
      p.put("langchain4j.open-ai.streaming-chat-model.base-url", v1);
      p.put("langchain4j.anthropic.chat-model.base-url", v1);
      p.put("langchain4j.anthropic.streaming-chat-model.base-url", v1);
      p.put("langchain4j.ollama.chat-model.base-url", root);
      p.put("langchain4j.ollama.streaming-chat-model.base-url", root);
      return p;
    }

    static SystemProperties pointAt(Simulator sim) {
      Map<String, String> previous = new LinkedHashMap<>();
      of(sim).forEach((k, v) -> previous.put(k, System.setProperty(k, v)));
      return new SystemProperties(previous);
    }

    void restore() {
      previous.forEach((k, v) -> {
        if (v == null) {
          System.clearProperty(k);
        } else {
          System.setProperty(k, v);
        }
      });
    }
  }
}
