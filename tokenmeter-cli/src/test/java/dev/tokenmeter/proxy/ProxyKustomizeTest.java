package dev.tokenmeter.proxy;

import static dev.tokenmeter.testkit.KubernetesModel.YAML;
import static dev.tokenmeter.testkit.KubernetesModel.unknownFields;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.openshift.api.model.monitoring.v1.ServiceMonitor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * deploy/proxy/, the proxy fleet's kustomize base: every resource it lists read into the
 * Kubernetes API's types strictly (the ServiceMonitor into the Prometheus Operator's), the wiring
 * between them (the Service and ServiceMonitor select the Deployment's pods, the mounts and the
 * Secret's keys exist), and the ConfigMap's proxy.yaml accepted by the proxy's own settings reader.
 */
class ProxyKustomizeTest {
  private static final Path BASE = Path.of("deploy/proxy");

  @TempDir Path tmp;

  @Test
  void theBaseIsValidAndWiredTogether() throws Exception {
    JsonNode kustomization = YAML.readTree(BASE.resolve("kustomization.yaml").toFile());
    assertThat(kustomization.get("kind").asText()).isEqualTo("Kustomization");
    List<String> resources = new ArrayList<>();
    kustomization.get("resources").forEach(r -> resources.add(r.asText()));
    assertThat(resources).containsExactlyInAnyOrder("configmap.yaml", "secret.yaml", "deployment.yaml",
        "service.yaml", "servicemonitor.yaml");

    ConfigMap cm = strict("configmap.yaml", ConfigMap.class);
    Secret secret = strict("secret.yaml", Secret.class);
    Deployment deployment = strict("deployment.yaml", Deployment.class);
    Service service = strict("service.yaml", Service.class);
    ServiceMonitor monitor = strict("servicemonitor.yaml", ServiceMonitor.class);

    Map<String, String> podLabels = deployment.getSpec().getTemplate().getMetadata().getLabels();
    assertThat(podLabels).containsAllEntriesOf(deployment.getSpec().getSelector().getMatchLabels());
    assertThat(podLabels).containsAllEntriesOf(service.getSpec().getSelector());
    assertThat(service.getMetadata().getLabels()).containsAllEntriesOf(monitor.getSpec().getSelector().getMatchLabels());
    assertThat(monitor.getSpec().getEndpoints().get(0).getPort()).isEqualTo(service.getSpec().getPorts().get(0).getName());
    assertThat(monitor.getSpec().getEndpoints().get(0).getPath()).isEqualTo("/metrics");
    assertThat(deployment.getSpec().getReplicas()).as("a fleet").isGreaterThanOrEqualTo(2);

    Container c = deployment.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(c.getArgs()).containsExactly("proxy", "--config", "/etc/tokenmeter/config/proxy.yaml");
    assertThat(c.getVolumeMounts()).extracting(m -> m.getMountPath())
        .containsExactlyInAnyOrder("/etc/tokenmeter/config", "/etc/tokenmeter/keys");
    assertThat(secret.getStringData()).containsKeys("keys", "pgpassword");
    assertThat(c.getEnv()).anySatisfy(e -> {
      assertThat(e.getName()).isEqualTo("PGPASSWORD");
      assertThat(e.getValueFrom().getSecretKeyRef().getName()).isEqualTo(secret.getMetadata().getName());
    });

    // The proxy's own reader accepts the config, laid out as the pod mounts it (the keys file beside
    // it, from the Secret): every setting known, the listener not loopback, a shared ledger.
    Path config = tmp.resolve("config/proxy.yaml");
    Files.createDirectories(config.getParent());
    Files.writeString(config, cm.getData().get("proxy.yaml"), StandardCharsets.UTF_8);
    Files.createDirectories(tmp.resolve("keys"));
    Files.writeString(tmp.resolve("keys/keys"), secret.getStringData().get("keys"), StandardCharsets.UTF_8);
    ProxyConfig resolved = ProxySettings.read(config).resolve(Map.of());
    assertThat(resolved.listen().getAddress().isAnyLocalAddress()).isTrue();
    assertThat(resolved.listen().getPort()).isEqualTo(c.getPorts().get(0).getContainerPort());
    assertThat(cm.getData().get("proxy.yaml")).contains("ledger: \"jdbc:postgresql://");
  }

  private static <T> T strict(String file, Class<T> type) throws Exception {
    T typed = YAML.readValue(BASE.resolve(file).toFile(), type);
    assertThat(unknownFields(typed)).as("fields of %s the API does not have", file).isEmpty();
    assertThat(YAML.readTree(BASE.resolve(file).toFile()).get("kind").asText()).isEqualTo(type.getSimpleName());
    return typed;
  }
}
