"""The MCP tools, by topic: tasks (server_info, examples, load_task, resources), questions (the ACP
questions and plans), scoring (score_answer) and episodes (policy episodes).

Each module holds module-level tool functions (callable without a client: pass
``acptools_server.state.local_context(state)`` as ``ctx``) and a ``TOOLS`` tuple that ``acptools_server.app`` registers.
"""
