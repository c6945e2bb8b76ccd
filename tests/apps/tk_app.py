"""A small Tk app for GUI tests: buttons, a text field, a click pad, a list, a draggable item, a modal dialog.

    python tk_app.py STATE.json

It opens with a modal "Welcome" dialog that blocks the main window until OK is
pressed. Every change is written to STATE.json (atomically), together with the
on-screen layout: the centre of each widget in root-window (screen) pixels.
"""

from __future__ import annotations

import json
import os
import sys
import tkinter as tk

ITEM = 30
"""Side of the draggable square, in canvas pixels."""
TARGET = (220, 30, 290, 100)
"""Drop zone on the canvas: x0, y0, x1, y1."""


class App:
    def __init__(self, root: tk.Tk, state_path: str) -> None:
        self.root = root
        self.state_path = state_path
        self.state = {
            "dialog_open": True,
            "clicks": 0,
            "text": "",
            "pad_events": [],
            "list_top": 0,
            "item": [0, 0],
            "in_target": False,
            "layout": {},
            "pid": os.getpid(),
        }
        root.title("Test app")
        root.geometry("420x420+40+40")
        self.add = tk.Button(root, text="Add one", command=self.on_add)
        self.add.pack(pady=6)
        self.text = tk.StringVar()
        self.text.trace_add("write", lambda *_: self.update(text=self.text.get()))
        self.entry = tk.Entry(root, textvariable=self.text, width=30)
        self.entry.pack(pady=6)
        self.pad = tk.Label(root, text="click pad", width=20, height=2, relief="ridge", bg="#ddeeff")
        self.pad.pack(pady=6)
        for sequence, kind in (
            ("<Button-1>", "click"),
            ("<Double-Button-1>", "double"),
            ("<Triple-Button-1>", "triple"),
            ("<Button-2>", "middle"),
            ("<Button-3>", "right"),
        ):
            self.pad.bind(sequence, lambda event, kind=kind: self.on_pad(event, kind))
        self.listbox = tk.Listbox(root, height=4)
        for number in range(60):
            self.listbox.insert("end", f"row {number}")
        self.listbox.configure(yscrollcommand=lambda *_: self.update(list_top=self.listbox.nearest(0)))
        self.listbox.pack(pady=6)
        self.canvas = tk.Canvas(root, width=300, height=130, bg="white")
        self.canvas.pack(pady=6)
        self.canvas.create_rectangle(*TARGET, outline="green", width=2)
        self.item = self.canvas.create_rectangle(10, 50, 10 + ITEM, 50 + ITEM, fill="red")
        self.canvas.tag_bind(self.item, "<ButtonPress-1>", self.on_grab)
        self.canvas.tag_bind(self.item, "<B1-Motion>", self.on_drag)
        self.canvas.tag_bind(self.item, "<ButtonRelease-1>", lambda _event: self.record_item())
        self.grab_at = (0, 0)
        self.dialog = self.open_dialog()
        root.bind("<Configure>", lambda event: event.widget is root and self.record_layout())
        root.after(300, self.record_layout)

    # -- events --------------------------------------------------------------------
    def on_add(self) -> None:
        self.update(clicks=self.state["clicks"] + 1)

    def on_pad(self, event: tk.Event, kind: str) -> None:
        modifiers = [name for name, bit in (("shift", 0x1), ("ctrl", 0x4)) if event.state & bit]
        self.update(pad_events=[*self.state["pad_events"], "+".join([*modifiers, kind])])

    def on_grab(self, event: tk.Event) -> None:
        self.grab_at = (event.x, event.y)

    def on_drag(self, event: tk.Event) -> None:
        self.canvas.move(self.item, event.x - self.grab_at[0], event.y - self.grab_at[1])
        self.grab_at = (event.x, event.y)

    def record_item(self) -> None:
        x0, y0, x1, y1 = self.canvas.coords(self.item)
        centre = ((x0 + x1) / 2, (y0 + y1) / 2)
        inside = TARGET[0] <= centre[0] <= TARGET[2] and TARGET[1] <= centre[1] <= TARGET[3]
        self.update(item=[round(centre[0]), round(centre[1])], in_target=inside)
        self.record_layout()

    def open_dialog(self) -> tk.Toplevel:
        dialog = tk.Toplevel(self.root)
        dialog.title("Welcome")
        dialog.geometry("+520+200")
        tk.Label(dialog, text="Welcome! Press OK to start.").pack(padx=20, pady=10)
        self.ok = tk.Button(dialog, text="OK", width=8, command=self.close_dialog)
        self.ok.pack(pady=10)
        dialog.bind("<Return>", lambda _event: self.close_dialog())
        dialog.transient(self.root)
        dialog.bind("<Configure>", lambda event: event.widget is dialog and self.record_layout())
        dialog.wait_visibility()
        dialog.grab_set()
        self.ok.focus_force()
        return dialog

    def close_dialog(self) -> None:
        self.dialog.grab_release()
        self.dialog.destroy()
        self.update(dialog_open=False)

    # -- state ---------------------------------------------------------------------
    def record_layout(self) -> None:
        if not self.root.winfo_viewable():
            self.root.after(100, self.record_layout)
            return
        widgets = {"add": self.add, "entry": self.entry, "pad": self.pad, "list": self.listbox}
        if self.state["dialog_open"]:
            widgets["dialog_ok"] = self.ok
        layout = {name: centre(widget) for name, widget in widgets.items()}
        x0, y0, x1, y1 = self.canvas.coords(self.item)
        origin = (self.canvas.winfo_rootx(), self.canvas.winfo_rooty())
        layout["item"] = [origin[0] + round((x0 + x1) / 2), origin[1] + round((y0 + y1) / 2)]
        layout["target"] = [
            origin[0] + (TARGET[0] + TARGET[2]) // 2,
            origin[1] + (TARGET[1] + TARGET[3]) // 2,
        ]
        self.update(layout=layout)

    def update(self, **changes) -> None:
        self.state.update(changes)
        temporary = self.state_path + ".tmp"
        with open(temporary, "w", encoding="utf-8") as handle:
            json.dump(self.state, handle, ensure_ascii=False)
        os.replace(temporary, self.state_path)


def centre(widget: tk.Widget) -> list[int]:
    return [
        widget.winfo_rootx() + widget.winfo_width() // 2,
        widget.winfo_rooty() + widget.winfo_height() // 2,
    ]


if __name__ == "__main__":
    window = tk.Tk()
    App(window, sys.argv[1])
    window.mainloop()
