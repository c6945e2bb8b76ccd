"""Named settings of the office toolkit's installation."""

TOOLKIT_REMOTE_DIR = ".local/share/stateact/toolkit/bin"
"""Where the toolkit goes inside a remote sandbox, relative to its home folder."""
TOOLKIT_REMOTE_LIB_DIR = ".local/share/stateact/toolkit/lib"
"""Where its Python modules go when the sandbox's python3 is a virtual environment (no `pip --user`)."""
TOOLKIT_PYTHON_PACKAGES = {
    "openpyxl": "openpyxl>=3.1",
    "docx": "python-docx>=1.1",
    "pptx": "python-pptx>=0.6.23",
}
"""Python modules the toolkit needs on the sandbox, with the pip requirement that provides each."""
TOOLKIT_PIP_TIMEOUT_S = 300.0
"""Longest a pip install of missing toolkit modules may take inside a sandbox."""
