package dev.tokenmeter.testkit;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Kubernetes manifests read into the API's own types (fabric8's generated model), strictly. fabric8
 * keeps a field its type does not have in {@code additionalProperties} rather than failing, so
 * {@link #unknownFields} walks the object graph for them: a manifest is valid when the list is empty.
 */
public final class KubernetesModel {
  /** Reads YAML; a field of the wrong type or shape fails here already. */
  public static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
      .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  private KubernetesModel() {}

  /** Every non-empty {@code additionalProperties} in {@code root}'s graph, as {@code Type.field}. */
  public static List<String> unknownFields(Object root) {
    List<String> out = new ArrayList<>();
    try {
      walk(root, out, new IdentityHashMap<>());
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
    return out;
  }

  private static void walk(Object o, List<String> out, IdentityHashMap<Object, Boolean> seen)
      throws ReflectiveOperationException {
    if (o == null || seen.put(o, true) != null) {
      return;
    }
    if (o instanceof Collection<?> c) {
      for (Object x : c) {
        walk(x, out, seen);
      }
      return;
    }
    if (o instanceof Map<?, ?> m) {
      for (Object x : m.values()) {
        walk(x, out, seen);
      }
      return;
    }
    if (!o.getClass().getName().startsWith("io.fabric8.")) {
      return;
    }
    for (Method g : o.getClass().getMethods()) {
      if (g.getParameterCount() != 0 || !g.getName().startsWith("get") || g.getDeclaringClass() == Object.class) {
        continue;
      }
      Object v = g.invoke(o);
      if (g.getName().equals("getAdditionalProperties")) {
        ((Map<?, ?>) v).keySet().forEach(k -> out.add(o.getClass().getSimpleName() + "." + k));
      } else {
        walk(v, out, seen);
      }
    }
  }
}
