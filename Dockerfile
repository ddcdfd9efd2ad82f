# The tokenmeter image for 'bench --workers' on Kubernetes (docs/WORKERS.md).
# Build the jar first, then the image:
#   ./mvnw -B -DskipTests -pl tokenmeter-cli -am package
#   docker build -t REGISTRY/tokenmeter:TAG .
# (or without Docker: ./mvnw -Pjib -DskipTests package -Djib.to.image=REGISTRY/tokenmeter:TAG)
# Distroless: a JRE 21 on Debian 12's glibc (Netty's epoll and the Hugging Face tokenizer's native
# library need it), no shell, running as the nonroot user. No shell means no launcher script: the
# entrypoint carries the options the launcher gives bench and worker runs (scripts/heap-for-run.sh:
# the serial collector, a 16 MiB initial heap, 512 KiB thread stacks, Netty's leak detector off,
# native access for the tokenizer) with the heap a share of the container's memory instead of a
# cap per run; ImageJvmFlagsTest keeps them equal to the launcher's and to the Jib profile's.
FROM gcr.io/distroless/java21-debian12:nonroot
COPY tokenmeter-cli/target/tokenmeter.jar /app/tokenmeter.jar
ENTRYPOINT ["/usr/bin/java", "-XX:MaxRAMPercentage=75", "-XX:+UseSerialGC", "-Xms16m", "-Xss512k", "-Dio.netty.leakDetection.level=disabled", "--enable-native-access=ALL-UNNAMED", "-jar", "/app/tokenmeter.jar"]
CMD ["--help"]
