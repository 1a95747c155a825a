"""External repositories that static_runtime's targets need.

A consumer workspace brings static_runtime in with

    local_repository(name = "static_runtime", path = "...")   # or http_archive
    load("@static_runtime//:repositories.bzl", "static_runtime_dependencies")
    static_runtime_dependencies()

The call must come before anything that loads @rules_cc or @rules_java: the
stand-ins declared here replace the archives that Bazel 4.2.3's built-in
WORKSPACE suffix would otherwise try to download (there is no network).
"""

load("//third_party:offline_rules.bzl", "native_rules_repository", "remote_coverage_tools_repository")

def static_runtime_dependencies():
    """Declares every external repository static_runtime's targets use.

    Repositories that the calling workspace already declares are left alone.
    """
    existing = native.existing_rules()

    if "rules_cc" not in existing:
        native_rules_repository(
            name = "rules_cc",
            package = "cc",
            rules = [
                "cc_binary",
                "cc_import",
                "cc_library",
                "cc_proto_library",
                "cc_shared_library",
                "cc_test",
                "cc_toolchain",
                "cc_toolchain_suite",
                "fdo_prefetch_hints",
                "fdo_profile",
                "objc_import",
                "objc_library",
            ],
        )
    if "rules_java" not in existing:
        native_rules_repository(
            name = "rules_java",
            package = "java",
            rules = [
                "java_binary",
                "java_import",
                "java_library",
                "java_lite_proto_library",
                "java_package_configuration",
                "java_plugin",
                "java_proto_library",
                "java_runtime",
                "java_test",
                "java_toolchain",
            ],
        )
    if "remote_coverage_tools" not in existing:
        remote_coverage_tools_repository(name = "remote_coverage_tools")

    if "debian_system" not in existing:
        # Debian 12 system libraries (LibTorch, Abseil, GoogleTest, ...), installed
        # by tools/setup.sh. Headers come from /usr/include.
        native.new_local_repository(
            name = "debian_system",
            path = "/usr",
            build_file = str(Label("//third_party:debian_system.BUILD")),
        )
