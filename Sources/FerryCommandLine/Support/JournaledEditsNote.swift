import Ferry

extension CommandContext {
    /// Tells the user, on standard error, which hand edits a write journaled before it wrote
    /// over them, and where their content is now: one line each, naming the store as the user did.
    ///
    /// ```text
    /// note: records/Product/7.json was edited by hand: its content is journaled first (ferry show ./data Product 7 --history)
    /// ```
    func noteJournaledEdits(_ edits: [StoreStatus.Edit], storeArgument: String) {
        for edit in edits {
            note(
                "\(edit.path) was edited by hand: its content is journaled first "
                    + "(ferry show \(storeArgument) \(edit.key.entity.rawValue) \(edit.key.id.rawValue) --history)")
        }
    }
}
