"""MentalKG as a networkx directed graph, and the questions asked of it.

Nodes are keyed by their MentalKG ids and carry a `type`: `disorder` (`D005`),
`symptom_group` (`depressive_episode`, one node shared by every disorder that uses it),
`symptom` (`S024`) and `differential` (`D001-D005`). Edges point from disorder to group
(`relation` `must` for a required group, `included_in` for an optional one), from group to
symptom (`must` for a mandatory symptom, else `included_in`), and from each member disorder to
its differential node (`role` `main` or `sub`). The published graph has 217 nodes and 332 edges.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import networkx as nx

if TYPE_CHECKING:
    from selfdx.datasets.mentalkg.entities import MentalKG


def build_graph(kg: MentalKG) -> nx.DiGraph:
    graph = nx.DiGraph()
    for code, disorder in kg.disorders.items():
        graph.add_node(code, type="disorder", name=disorder.name, criteria=disorder.criteria)
    for name, group in kg.groups.items():
        graph.add_node(name, type="symptom_group", name=name, group=group)
        mandatory = set(group.must_include_all) | set(group.must_include_one_of)
        for symptom in group.pool:
            relation = "must" if symptom in mandatory else "included_in"
            graph.add_edge(name, symptom, relation=relation)
    for code, symptom in kg.symptoms.items():
        graph.add_node(code, type="symptom", name=symptom.name, category=symptom.category)
    for code, disorder in kg.disorders.items():
        for link in disorder.groups:
            graph.add_edge(code, link.group, relation="must" if link.required else "included_in")
    for (main, sub), differential in kg.differentials.items():
        node = differential.id
        graph.add_node(node, type="differential", name=f"DiffDiag:{node}", main=main, sub=sub)
        graph.add_edge(main, node, role="main")
        graph.add_edge(sub, node, role="sub")
    return graph


def nodes_of_type(graph: nx.DiGraph, kind: str) -> list[str]:
    return [node for node, data in graph.nodes(data=True) if data["type"] == kind]


def groups_of(graph: nx.DiGraph, disorder: str, required_only: bool = False) -> list[str]:
    """The disorder's groups in KG order (only the required ones, if asked)."""
    return [
        node
        for node, data in graph.adj[disorder].items()
        if graph.nodes[node]["type"] == "symptom_group"
        and (not required_only or data["relation"] == "must")
    ]


def symptoms_of(graph: nx.DiGraph, disorder: str) -> set[str]:
    return {symptom for group in groups_of(graph, disorder) for symptom in graph.adj[group]}


def shared_groups(graph: nx.DiGraph, first: str, second: str) -> tuple[str, ...]:
    """Groups used by both disorders (required or optional), in the first one's order."""
    other = set(groups_of(graph, second))
    return tuple(group for group in groups_of(graph, first) if group in other)


def shared_symptoms(graph: nx.DiGraph, first: str, second: str) -> tuple[str, ...]:
    """Symptoms that count for some group of each disorder, sorted by code."""
    return tuple(sorted(symptoms_of(graph, first) & symptoms_of(graph, second)))


def differentials_of(graph: nx.DiGraph, disorder: str, role: str = "main") -> list[tuple[str, str]]:
    """(main, sub) of each differential node where `disorder` plays `role` (`main` or `sub`)."""
    if role not in ("main", "sub"):
        raise ValueError(f"role: expected 'main' or 'sub', got {role!r}")
    return [
        (graph.nodes[node]["main"], graph.nodes[node]["sub"])
        for node, data in graph.adj[disorder].items()
        if graph.nodes[node]["type"] == "differential" and data["role"] == role
    ]
