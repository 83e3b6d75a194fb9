from floor_common import chart, slider

x = slider()
chart({"data": [{"type": "scatter", "x": [0, 1], "y": [0, x]}], "layout": {"height": 300}})
