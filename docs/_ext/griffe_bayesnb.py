"""A Griffe extension for the documentation build (loaded by mkdocstrings, see mkdocs.yml).

bayesnb's docstrings are numpydoc, written with Sphinx's roles and directives, while
mkdocstrings renders a docstring as Markdown. Before the docstrings are parsed, this
extension rewrites, in the documentation build only:

* ``:math:`...``` into inline math ``\\(...\\)`` and ``.. math::`` blocks into display
  math ``$$ ... $$`` (both typeset by pymdownx.arithmatex and MathJax);
* ``:func:``, ``:class:``, ``:meth:``, ``:attr:``, ``:data:``, ``:mod:``, ``:exc:`` and
  ``:obj:`` references into links to the API reference where the target is rendered
  there, and into plain code where it is not (a private helper, or numpy's API);
  ``~`` shows the last component only, as in Sphinx;
* a public name that Griffe shadows by a submodule of the same name (``bayesnb.compare``
  is the function :func:`bayesnb.workflow.compare`, while ``bayesnb/compare.py`` is a
  module) back into the object Python exports under that name.
"""

from __future__ import annotations

import importlib
import inspect
import re
from typing import Any

from griffe import Alias, Extension, Module, Object

ROLE = re.compile(r":(?:py:)?(?:func|class|meth|attr|mod|data|exc|obj):`(~?)([^`]+)`")
MATH_ROLE = re.compile(r":math:`([^`]+)`")
PARAMETER_LINE = re.compile(r"^[ \t]*\*{0,2}\w+(?:, *\*{0,2}\w+)* : .*$", re.M)
SHARED_PARAMETERS = re.compile(r"^(?P<indent>[ \t]*)(?P<names>\w+(?:, *\w+)+) : (?P<type>.*)$")
LIST_OR_BLOCK = re.compile(r"^\s*(?:[-*+] |\d+\. |\$\$|>>>|\.\. |-{3,}$)")
MATH_DIRECTIVE = re.compile(r"^(?P<indent>[ \t]*)\.\. math::[ \t]*(?P<first>.*)$")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def math_blocks(text: str) -> str:
    """``.. math::`` directives as ``$$`` display blocks at the directive's indent."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        match = MATH_DIRECTIVE.match(lines[i])
        if not match:
            out.append(lines[i])
            i += 1
            continue
        indent = match["indent"]
        first = [match["first"].strip()] if match["first"].strip() else []
        i += 1
        rest: list[str] = []
        while i < len(lines) and (not lines[i].strip() or _indent(lines[i]) > len(indent)):
            rest.append(lines[i])
            i += 1
        while rest and not rest[-1].strip():
            rest.pop()
        cut = min((_indent(line) for line in rest if line.strip()), default=0)
        body = first + [line[cut:] for line in rest]
        if out and out[-1].strip():
            out.append("")
        out.extend([f"{indent}$$", *(f"{indent}{line}".rstrip() for line in body), f"{indent}$$"])
        if i < len(lines) and lines[i].strip():
            out.append("")
    return "\n".join(out)


def _shown(match: re.Match) -> str:
    name = match[2].strip()
    return name.rsplit(".", 1)[-1] if match[1] else name


def join_summary(text: str) -> str:
    """The first paragraph on one line: mkdocstrings' summary tables show a docstring's
    first line, and a summary wrapped over several lines would be cut mid-sentence."""
    head, sep, rest = text.partition("\n\n")
    lines = head.split("\n")
    if len(lines) > 1 and not any(LIST_OR_BLOCK.match(line) for line in lines[1:]):
        head = " ".join(line.strip() for line in lines)
    return head + sep + rest


def split_parameters(text: str) -> str:
    """``a, b : type`` entries as one entry per name, each with the description: Griffe
    would give every name the first one's default."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        match = SHARED_PARAMETERS.match(lines[i])
        if not match:
            out.append(lines[i])
            i += 1
            continue
        indent = match["indent"]
        j = i + 1
        while j < len(lines) and (not lines[j].strip() or _indent(lines[j]) > len(indent)):
            j += 1
        description = lines[i + 1 : j]
        while description and not description[-1].strip():
            description.pop()
        for name in match["names"].split(","):
            out.extend([f"{indent}{name.strip()} : {match['type']}", *description])
        out.extend(lines[i + 1 + len(description) : j])
        i = j
    return "\n".join(out)


def _resolve(obj: Object, name: str) -> str | None:
    """The canonical path of the object that ``name`` refers to from ``obj``, if any."""
    name = name.strip().removesuffix("()").lstrip(".")
    collection = obj.modules_collection
    scopes = []
    scope: Object | None = obj
    while scope is not None:
        scopes.append(scope.path)
        scope = scope.parent
    root = obj.package.path
    for candidate in [name, *(f"{path}.{name}" for path in scopes), f"{root}.{name}"]:
        try:
            target = collection.get_member(candidate)
            return target.canonical_path
        except Exception:  # unknown, or an alias to a module that is not loaded
            continue
    return None


def rewrite(obj: Object, text: str) -> str:
    """A numpydoc docstring with Sphinx markup, as mkdocstrings' Markdown."""
    text = join_summary(text)
    text = split_parameters(text)
    text = math_blocks(text)
    # a numpydoc "name : type, default value" line is shown as code: names only there
    text = PARAMETER_LINE.sub(lambda m: ROLE.sub(_shown, m[0]), text)
    text = MATH_ROLE.sub(lambda m: f"\\({m[1]}\\)", text)

    def reference(match: re.Match) -> str:
        name, shown = match[2].strip(), _shown(match)
        path = _resolve(obj, name)
        if path is None:
            return f"`{shown}`"
        return f'<autoref identifier="{path}" optional>`{shown}`</autoref>'

    return ROLE.sub(reference, text)


def _walk(obj: Object):
    yield obj
    for member in obj.members.values():
        if not isinstance(member, Alias):
            yield from _walk(member)


class BayesnbDocstrings(Extension):
    """Sphinx markup to Markdown, and shadowed exports restored (see the module)."""

    def on_package(self, *, pkg: Module, **kwargs: Any) -> None:
        self._restore_shadowed_exports(pkg)
        for obj in _walk(pkg):
            if obj.docstring is not None:
                obj.docstring.value = rewrite(obj, obj.docstring.value)

    @staticmethod
    def _restore_shadowed_exports(pkg: Module) -> None:
        for module in (m for m in _walk(pkg) if isinstance(m, Module)):
            shadowed = [
                name
                for name in module.exports or ()
                if isinstance(module.members.get(name), Module)
                and module.members[name].parent is module
            ]
            if not shadowed:
                continue
            runtime = importlib.import_module(module.path)
            for name in shadowed:
                value = getattr(runtime, name)
                if inspect.ismodule(value):
                    continue
                submodule = module.members[name]
                # the aliases into the submodule resolve now, before it leaves the tree
                for obj in _walk(pkg):
                    for member in obj.members.values():
                        if isinstance(member, Alias) and member.target_path.startswith(
                            f"{submodule.path}."
                        ):
                            member.resolve_target()
                target = f"{value.__module__}.{value.__qualname__}"
                module.set_member(name, Alias(name, target, parent=module))
