package dev.tokenmeter.cli;

import static dev.tokenmeter.testkit.KubernetesModel.unknownFields;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tokenmeter.run.K8sManifests;
import dev.tokenmeter.testkit.KubernetesModel;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code tokenmeter k8s render}: every manifest read into the Kubernetes API's own types (fabric8's
 * model), strictly: a field the API does not have fails (fabric8 keeps unknown fields in
 * additionalProperties, which must stay empty everywhere); the Indexed Job, the Service's selector,
 * the sizing and the arguments' round trip through the ConfigMap's @-file.
 */
class K8sRenderTest {
  private static final ObjectMapper YAML = KubernetesModel.YAML;
  private static final List<String> BENCH = List.of("--url", "http://vllm.serving:8000", "--model", "M",
      "--concurrency", "400,2000", "--duration", "120s", "--extra-body", "{\"ignore_eos\":true, \"x\":\"a\\\\b\"}",
      "--header", "X-Note: #1 'helpful'");

  @TempDir Path tmp;

  @Test
  void theManifestsAreValidKubernetesObjects() throws Exception {
    Path out = tmp.resolve("k8s");
    List<String> args = new ArrayList<>(List.of("k8s", "render", "--workers", "4", "--image", "ghcr.io/acme/tokenmeter:1",
        "--namespace", "load", "--out", out.toString(), "--"));
    args.addAll(BENCH);
    Cli r = run(args);
    assertThat(r.code).as(r.err).isZero();

    ConfigMap cm = strict(out.resolve("configmap.yaml"), 0, ConfigMap.class);
    PersistentVolumeClaim pvc = strict(out.resolve("results-pvc.yaml"), 0, PersistentVolumeClaim.class);
    Job coordinator = strict(out.resolve("coordinator.yaml"), 0, Job.class);
    Service service = strict(out.resolve("coordinator.yaml"), 1, Service.class);
    Job workers = strict(out.resolve("workers.yaml"), 0, Job.class);

    assertThat(workers.getSpec().getCompletionMode()).isEqualTo("Indexed");
    assertThat(workers.getSpec().getCompletions()).isEqualTo(4);
    assertThat(workers.getSpec().getParallelism()).isEqualTo(4);
    assertThat(workers.getSpec().getBackoffLimit()).isZero();
    assertThat(workers.getMetadata().getNamespace()).isEqualTo("load");
    Container w = workers.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(w.getArgs()).containsExactly("worker", "--coordinator", "http://tokenmeter-coordinator:7070");
    // 2000 users over 4 workers: 500 streams, 500m + 2m each = 1.5 cores, 512 MiB + 125 MiB.
    assertThat(Quantity.getAmountInBytes(w.getResources().getRequests().get("cpu")).doubleValue()).isEqualTo(1.5);
    assertThat(w.getResources().getRequests().get("memory")).isEqualTo(new Quantity("637Mi"));
    assertThat(w.getResources().getLimits()).doesNotContainKey("cpu");

    assertThat(service.getSpec().getSelector())
        .isEqualTo(coordinator.getSpec().getTemplate().getMetadata().getLabels());
    assertThat(service.getSpec().getPorts().get(0).getPort()).isEqualTo(7070);
    Container c = coordinator.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(c.getArgs()).containsSubsequence("bench", "@/config/bench.args", "--workers", "4",
        "--worker-launch", "external", "--coordinator-listen", "0.0.0.0:7070");
    assertThat(pvc.getSpec().getResources().getRequests().get("storage")).isEqualTo(new Quantity("1Gi"));

    // The @-file picocli reads back is the bench arguments given, quotes, '#' and backslashes included.
    Path argsFile = tmp.resolve("bench.args");
    Files.writeString(argsFile, cm.getData().get("bench.args"), StandardCharsets.UTF_8);
    CommandLine cl = Main.commandLine();
    cl.parseArgs("bench", "@" + argsFile);
    List<String> expanded = cl.getParseResult().expandedArgs();
    assertThat(expanded.subList(1, expanded.size())).isEqualTo(BENCH);
  }

  @Test
  void aFieldTheApiDoesNotHaveFails() throws Exception {
    String job = K8sManifests.render(new K8sManifests.Settings("t", null, "img", 2, List.of("--url", "http://x"), 10,
        "1Gi")).get("workers.yaml");
    ObjectNode tree = (ObjectNode) YAML.readTree(job);
    ((ObjectNode) tree.get("spec")).put("completionsMode", "Indexed"); // misspelt
    Job typed = YAML.treeToValue(tree, Job.class);
    assertThat(unknownFields(typed)).containsExactly("JobSpec.completionsMode");
    assertThat(unknownFields(YAML.treeToValue(YAML.readTree(job), Job.class))).isEmpty();
  }

  @Test
  void badArgumentsAreOneLine() {
    Cli r = run(List.of("k8s", "render", "--workers", "3", "--image", "i", "--out", tmp.toString(), "--",
        "--url", "http://x", "--concurrency", "10"));
    assertThat(r.code).isEqualTo(2);
    assertThat(r.err.strip()).isEqualTo("tokenmeter: --concurrency 10 is the total over the 3 workers and must divide"
        + " evenly: use 9 or 12");
    Cli own = run(List.of("k8s", "render", "--workers", "2", "--image", "i", "--out", tmp.toString(), "--",
        "--url", "http://x", "--out", "y"));
    assertThat(own.code).isEqualTo(2);
    assertThat(own.err).contains("--out is set by k8s render itself");
  }

  private static <T> T strict(Path file, int doc, Class<T> type) throws Exception {
    String[] docs = Files.readString(file, StandardCharsets.UTF_8).split("(?m)^---$");
    T typed = YAML.readValue(docs[doc], type);
    assertThat(unknownFields(typed)).as("fields of %s the Kubernetes API does not have", file).isEmpty();
    JsonNode tree = YAML.readTree(docs[doc]);
    assertThat(tree.get("kind").asText()).isEqualTo(type.getSimpleName());
    return typed;
  }

  private record Cli(int code, String err) {}

  private static Cli run(List<String> args) {
    java.io.StringWriter err = new java.io.StringWriter();
    CommandLine cl = Main.commandLine();
    cl.setErr(new java.io.PrintWriter(err));
    java.io.PrintStream saved = System.out;
    try {
      System.setOut(new java.io.PrintStream(java.io.OutputStream.nullOutputStream()));
      int code = cl.execute(args.toArray(String[]::new));
      return new Cli(code, err.toString());
    } finally {
      System.setOut(saved);
    }
  }
}
