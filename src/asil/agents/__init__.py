"""Agents: the protocol, the registry, and the built-in agents."""

from asil.agents.base import AGENTS, Agent, Decision, make_agent

__all__ = ["AGENTS", "Agent", "Decision", "make_agent"]
