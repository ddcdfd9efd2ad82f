# The tokenmeter image for 'bench --workers' on Kubernetes (docs/WORKERS.md).
# Build the jar first, then the image:
#   ./mvnw -B -DskipTests -pl tokenmeter-cli -am package
#   docker build -t REGISTRY/tokenmeter:TAG .
# (or without Docker: ./mvnw -Pjib -DskipTests package -Djib.to.image=REGISTRY/tokenmeter:TAG)
# Distroless: a JRE 21 on Debian 12's glibc (Netty's epoll and the Hugging Face tokenizer's native
# library need it), no shell, running as the nonroot user.
FROM gcr.io/distroless/java21-debian12:nonroot
COPY tokenmeter-cli/target/tokenmeter.jar /app/tokenmeter.jar
ENTRYPOINT ["/usr/bin/java", "-XX:MaxRAMPercentage=75", "-jar", "/app/tokenmeter.jar"]
CMD ["--help"]
