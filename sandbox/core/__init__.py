"""Shared building blocks of the sandbox upstream (stable API for resource plug-ins)."""
