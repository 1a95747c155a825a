"""Offline stand-ins for repositories Bazel 4.2.3 would otherwise download.

Bazel's built-in WORKSPACE suffix references @rules_cc, @rules_java and
@remote_coverage_tools. With no network, their download fails. These
repository rules generate tiny local replacements instead:
  - a rules repository whose `<package>/defs.bzl` re-exports the native rules;
  - a coverage repository with the two empty filegroups every cc_test refers to.
"""

def _native_rules_repository_impl(ctx):
    package = ctx.attr.package
    lines = ["# Generated offline stand-in: re-exports Bazel's native rules."]
    for rule in ctx.attr.rules:
        lines.append("{rule} = getattr(native, \"{rule}\", None)".format(rule = rule))
    ctx.file("WORKSPACE", "workspace(name = \"%s\")\n" % ctx.name)
    ctx.file("BUILD.bazel", "")
    ctx.file(package + "/BUILD.bazel", "exports_files([\"defs.bzl\"])\n")
    ctx.file(package + "/defs.bzl", "\n".join(lines) + "\n")

native_rules_repository = repository_rule(
    implementation = _native_rules_repository_impl,
    attrs = {
        "package": attr.string(mandatory = True, doc = "Package holding defs.bzl, e.g. 'cc'."),
        "rules": attr.string_list(mandatory = True, doc = "Native rule names to re-export."),
    },
    doc = "A local repository whose <package>/defs.bzl re-exports native rules.",
)

def _remote_coverage_tools_repository_impl(ctx):
    ctx.file("WORKSPACE", "workspace(name = \"%s\")\n" % ctx.name)
    ctx.file("BUILD.bazel", "\n".join([
        "# Generated offline stand-in for Bazel's coverage tools.",
        "package(default_visibility = [\"//visibility:public\"])",
        "filegroup(name = \"coverage_report_generator\", srcs = [])",
        "filegroup(name = \"lcov_merger\", srcs = [])",
        "",
    ]))

remote_coverage_tools_repository = repository_rule(
    implementation = _remote_coverage_tools_repository_impl,
    doc = "Empty coverage_report_generator and lcov_merger filegroups.",
)
