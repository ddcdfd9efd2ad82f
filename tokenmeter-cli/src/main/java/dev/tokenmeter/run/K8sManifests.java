package dev.tokenmeter.run;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Kubernetes manifests of a {@code bench --workers N} run ({@code tokenmeter k8s render}): a
 * ConfigMap with the bench arguments (the workload), a PersistentVolumeClaim for the results, the
 * coordinator as a one-pod Job behind a Service, and the workers as an Indexed Job ({@code
 * completionMode: Indexed}: each pod's {@code JOB_COMPLETION_INDEX} is its shard). A pure function
 * of {@link Settings}; the YAML is checked against the Kubernetes API's types in the tests.
 */
public final class K8sManifests {
  /* design notes
   * - Sizing: one client process holds about a thousand streams on two cores (docs/PERFORMANCE.md),
   *   so a worker requests 2 millicores a stream plus 500m for the JVM, and 512 MiB plus 256 KiB a
   *   stream. No CPU limit: CFS throttling would stall the event loop mid-stream and show up as
   *   latency that the server did not cause; the memory limit equals the request (predictable OOM).
   * - No retries (backoffLimit 0): a restarted worker would register a second time for a shard
   *   that already ran part of the run; the coordinator reports it lost instead.
   * - The arguments travel as a picocli @-file in the ConfigMap, mounted in every pod.
   */
  static final int PORT = 7070;
  static final String ARGS_FILE = "bench.args";
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory()
      .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
      .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
      .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS));

  /**
   * What to render.
   *
   * @param name prefix of every object's name (a DNS label)
   * @param namespace the namespace, or null for the one kubectl uses
   * @param image the tokenmeter container image
   * @param workers N
   * @param benchArgs the bench arguments (without --workers, --out and the coordinator's options)
   * @param streamsPerWorker the most streams one worker holds, for its resource requests
   * @param resultsSize the results volume's size ({@code 1Gi})
   */
  public record Settings(
      String name, String namespace, String image, int workers, List<String> benchArgs, int streamsPerWorker,
      String resultsSize) {
    public Settings {
      benchArgs = List.copyOf(benchArgs);
      if (!name.matches("[a-z]([-a-z0-9]{0,38}[a-z0-9])?")) {
        throw new IllegalArgumentException("--name must be a DNS label of at most 40 characters (lower-case letters,"
            + " digits, '-'), got '" + name + "'");
      }
    }
  }

  private K8sManifests() {}

  /** File name → YAML: {@code configmap.yaml}, {@code results-pvc.yaml}, {@code coordinator.yaml}, {@code workers.yaml}. */
  public static Map<String, String> render(Settings s) {
    Map<String, String> files = new LinkedHashMap<>();
    files.put("configmap.yaml", yaml(configMap(s)));
    files.put("results-pvc.yaml", yaml(pvc(s)));
    files.put("coordinator.yaml", yaml(coordinatorJob(s)) + "---\n" + yaml(service(s)));
    files.put("workers.yaml", yaml(workersJob(s)));
    return files;
  }

  /** The workload as a picocli @-file: one argument a line, quoted where picocli would split it. */
  public static String argsFile(List<String> args) {
    StringBuilder b = new StringBuilder("# tokenmeter bench arguments (picocli @-file), written by 'tokenmeter k8s render'\n");
    for (String a : args) {
      boolean plain = !a.isEmpty() && a.chars().noneMatch(c -> Character.isWhitespace(c) || c == '"' || c == '\''
          || c == '\\' || c == '#');
      b.append(plain ? a : "\"" + a.replace("\\", "\\\\").replace("\"", "\\\"") + "\"").append('\n');
    }
    return b.toString();
  }

  /** Millicores a worker requests: 2 a stream, plus 500 for the JVM. */
  static int cpuMillis(int streams) {
    return 500 + 2 * streams;
  }

  /** MiB a worker requests and is limited to: 512 plus 256 KiB a stream. */
  static int memoryMiB(int streams) {
    return 512 + (streams + 3) / 4;
  }

  private static ObjectNode object(Settings s, String apiVersion, String kind, String name, String component) {
    ObjectNode o = YAML.createObjectNode().put("apiVersion", apiVersion).put("kind", kind);
    ObjectNode meta = o.putObject("metadata").put("name", name);
    if (s.namespace() != null) {
      meta.put("namespace", s.namespace());
    }
    labels(meta.putObject("labels"), s, component);
    return o;
  }

  private static void labels(ObjectNode labels, Settings s, String component) {
    labels.put("app.kubernetes.io/name", "tokenmeter").put("app.kubernetes.io/instance", s.name());
    if (component != null) {
      labels.put("app.kubernetes.io/component", component);
    }
  }

  private static ObjectNode configMap(Settings s) {
    ObjectNode o = object(s, "v1", "ConfigMap", s.name() + "-workload", null);
    o.putObject("data").put(ARGS_FILE, argsFile(s.benchArgs()));
    return o;
  }

  private static ObjectNode pvc(Settings s) {
    ObjectNode o = object(s, "v1", "PersistentVolumeClaim", s.name() + "-results", null);
    ObjectNode spec = o.putObject("spec");
    spec.putArray("accessModes").add("ReadWriteOnce");
    spec.putObject("resources").putObject("requests").put("storage", s.resultsSize());
    return o;
  }

  private static ObjectNode service(Settings s) {
    ObjectNode o = object(s, "v1", "Service", s.name() + "-coordinator", "coordinator");
    ObjectNode spec = o.putObject("spec");
    labels(spec.putObject("selector"), s, "coordinator");
    spec.putArray("ports").addObject().put("name", "control").put("port", PORT).put("targetPort", PORT)
        .put("protocol", "TCP");
    return o;
  }

  private static ObjectNode coordinatorJob(Settings s) {
    ObjectNode o = object(s, "batch/v1", "Job", s.name() + "-coordinator", "coordinator");
    ObjectNode spec = o.putObject("spec").put("backoffLimit", 0).put("completions", 1).put("parallelism", 1);
    ObjectNode pod = podTemplate(spec, s, "coordinator");
    ObjectNode c = container(pod, s, "coordinator");
    c.putArray("args").add("bench").add("@/config/" + ARGS_FILE).add("--workers").add(Integer.toString(s.workers()))
        .add("--worker-launch").add("external").add("--coordinator-listen").add("0.0.0.0:" + PORT)
        .add("--out").add("/results/" + s.name()).add("--quiet");
    c.putArray("ports").addObject().put("name", "control").put("containerPort", PORT).put("protocol", "TCP");
    resources(c, 1000, 1024);
    mounts(c, true);
    volumes(pod, s, true);
    return o;
  }

  private static ObjectNode workersJob(Settings s) {
    ObjectNode o = object(s, "batch/v1", "Job", s.name() + "-workers", "worker");
    ObjectNode spec = o.putObject("spec").put("completionMode", "Indexed").put("completions", s.workers())
        .put("parallelism", s.workers()).put("backoffLimit", 0);
    ObjectNode pod = podTemplate(spec, s, "worker");
    // Spread the workers over nodes: two on one node share its NIC and cores.
    ObjectNode term = pod.putObject("affinity").putObject("podAntiAffinity")
        .putArray("preferredDuringSchedulingIgnoredDuringExecution").addObject().put("weight", 100)
        .putObject("podAffinityTerm").put("topologyKey", "kubernetes.io/hostname");
    labels(term.putObject("labelSelector").putObject("matchLabels"), s, "worker");
    ObjectNode c = container(pod, s, "worker");
    c.putArray("args").add("worker").add("--coordinator").add("http://" + s.name() + "-coordinator:" + PORT);
    resources(c, cpuMillis(s.streamsPerWorker()), memoryMiB(s.streamsPerWorker()));
    mounts(c, false);
    volumes(pod, s, false);
    return o;
  }

  private static ObjectNode podTemplate(ObjectNode jobSpec, Settings s, String component) {
    ObjectNode template = jobSpec.putObject("template");
    labels(template.putObject("metadata").putObject("labels"), s, component);
    return template.putObject("spec").put("restartPolicy", "Never");
  }

  private static ObjectNode container(ObjectNode pod, Settings s, String name) {
    ObjectNode c = pod.putArray("containers").addObject().put("name", name).put("image", s.image());
    c.putArray("env").addObject().put("name", "JAVA_TOOL_OPTIONS").put("value", "-XX:MaxRAMPercentage=75");
    return c;
  }

  private static void resources(ObjectNode c, int cpuMillis, int memoryMiB) {
    ObjectNode r = c.putObject("resources");
    r.putObject("requests").put("cpu", cpuMillis + "m").put("memory", memoryMiB + "Mi");
    r.putObject("limits").put("memory", memoryMiB + "Mi"); // no CPU limit: see the design notes
  }

  private static void mounts(ObjectNode c, boolean results) {
    ArrayNode m = c.putArray("volumeMounts");
    m.addObject().put("name", "workload").put("mountPath", "/config").put("readOnly", true);
    if (results) {
      m.addObject().put("name", "results").put("mountPath", "/results");
    }
  }

  private static void volumes(ObjectNode pod, Settings s, boolean results) {
    ArrayNode v = pod.putArray("volumes");
    v.addObject().put("name", "workload").putObject("configMap").put("name", s.name() + "-workload");
    if (results) {
      v.addObject().put("name", "results").putObject("persistentVolumeClaim").put("claimName", s.name() + "-results");
    }
  }

  private static String yaml(ObjectNode o) {
    try {
      return YAML.writeValueAsString(o);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
