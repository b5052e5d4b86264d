import Ferry
print("ferry-bench")
